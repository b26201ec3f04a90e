#!/usr/bin/env bash
# The one driver of ktune's GPU benchmarks (bench/README.md lists every claim and its step):
# build, run the GPU tests and the benchmark steps, and write a table to $OUT/summary.md.
#
#   bash bench/gpu/run.sh [STEP[:SECONDS]...]      (default: build device tests)
#
# A step named with :SECONDS runs under that time limit (the device call has a wall-clock limit;
# a step that hangs must not take the others with it). Environment:
#   TARGET="a b"   build only these targets (scripts/build.sh), e.g. a short call that needs
#                  only ktune_cli ktune_inject and one bench binary;
#   BUILD_ARGS     extra CMake arguments, e.g. "-DKTUNE_WITH_XGBOOST=OFF -DKTUNE_BUILD_EXAMPLES=OFF";
#   FRESH=1        configure build-gpu afresh: a machine left warm by another call may hold a
#                  build-gpu whose objects are newer than this checkout's files (tar keeps commit
#                  times) and ninja would then relink them without recompiling;
#   CTEST_ARGS     arguments for the tests step, e.g. "-L gpu" or "-R 'gpu_tune|unit_measure'".
# Steps: build, device, tests, pack (below), and one step_<name> per benchmark, defined in
# bench/<claim>/gpu_step.sh or bench/<claim>/gpu_step_<part>.sh (sourced here, every one).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/out}
export OUT
mkdir -p "$OUT"
export PATH="/usr/local/cuda/bin:$PATH" PYTHONUNBUFFERED=1
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(build device tests)
summary="$OUT/summary.md"
echo "# ktune GPU run $(date -u +%Y-%m-%dT%H:%MZ)" >"$summary"
export summary

step_build() {
    nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv |
        tee -a "$summary"
    # The GPU image may lack packages: bench/gpu/carry.sh unpacks Debian packages into .carry/root.
    if [ -d .carry/root ]; then
        export CMAKE_PREFIX_PATH=$PWD/.carry/root/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
        export CPATH=$PWD/.carry/root/usr/include${CPATH:+:$CPATH}
        export LIBRARY_PATH=$PWD/.carry/root/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}
        export LD_LIBRARY_PATH=$PWD/.carry/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
        export PATH=$PATH:$PWD/.carry/root/usr/bin # redis-server for the shared-tier tests
    fi
    [ "${FRESH:-0}" != 1 ] || rm -rf build-gpu
    local t=$SECONDS
    # shellcheck disable=SC2086 # BUILD_ARGS is a list of words
    BUILD_DIR=build-gpu BUILD_TYPE=Release scripts/build.sh -DKTUNE_WERROR=OFF ${BUILD_ARGS:-} \
        >"$OUT/build.log" 2>&1 || {
        # One broken target should not cost the rest of a device call: build everything else.
        cmake --build build-gpu --parallel "${JOBS:-$(nproc)}" ${TARGET:+--target $TARGET} \
            -- -k 0 >>"$OUT/build.log" 2>&1
        grep -E "error|FAILED" "$OUT/build.log" | head -40
        return 1
    }
    echo "build: ok in $((SECONDS - t)) s${TARGET:+ (targets: $TARGET)}" | tee -a "$summary"
}
step_device() {
    { echo '```'; build-gpu/tools/ktune-cli/ktune device; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; echo '```'; } 2>&1 | tee -a "$summary"
}
step_tests() {
    # shellcheck disable=SC2086
    (cd build-gpu && eval ctest --output-on-failure --timeout 600 -j 8 ${CTEST_ARGS:-}) \
        >"$OUT/ctest.log" 2>&1
    local rc=$?
    grep -E "tests passed|tests failed|Skipped|Failed|Passed" "$OUT/ctest.log" | tail -40 | tee -a "$summary"
    return $rc
}
# Folds every file under $OUT but the tables (*.txt, *.md) into $OUT/raw.tgz, cubins left out:
# the device call returns a bounded number of files. Run it last. The archive is written outside
# $OUT first (tar of a directory it writes into fails).
step_pack() {
    local t=/tmp/ktune_pack.$$.tgz
    (cd "$OUT" && tar czf "$t" --exclude='*.cubin' --exclude=raw.tgz . && mv "$t" raw.tgz &&
        find . -mindepth 1 -maxdepth 1 ! -name raw.tgz ! -name '*.txt' ! -name '*.md' \
            -exec rm -rf {} +) && ls -la "$OUT"
}
for f in bench/*/gpu_step.sh bench/*/gpu_step_*.sh; do [ -f "$f" ] && source "$f"; done
# A step under a time limit runs in a child bash: it inherits the steps as exported functions.
# shellcheck disable=SC2046
export -f $(compgen -A function)

rc=0
for s in "${steps[@]}"; do
    name=${s%%:*} limit=
    [ "$name" = "$s" ] || limit=${s#*:}
    echo "== step $name${limit:+ (limit ${limit} s)}"
    t=$SECONDS
    if [ -n "$limit" ]; then
        timeout "$limit" bash -c "step_$name"
    else
        "step_$name"
    fi
    step_rc=$?
    echo "== step $name: rc $step_rc in $((SECONDS - t)) s"
    if [ $step_rc -ne 0 ]; then echo "step $name FAILED (rc $step_rc)" | tee -a "$summary"; rc=1; fi
done
echo; cat "$summary"
exit $rc
