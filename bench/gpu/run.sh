#!/usr/bin/env bash
# One script for the GPU machine: build, run the GPU tests and the GPU benchmarks, and write a
# table to $OUT. Usage on the device: bash bench/gpu/run.sh [steps...]   (default: all steps)
# Steps: build, device, tests, and one per benchmark as they land (see STEPS below).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
export PATH="/usr/local/cuda/bin:$PATH"
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(build device tests)
summary="$OUT/summary.md"
echo "# ktune GPU run $(date -u +%Y-%m-%dT%H:%MZ)" >"$summary"

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
    BUILD_DIR=build-gpu BUILD_TYPE=Release scripts/build.sh -DKTUNE_WERROR=OFF \
        >"$OUT/build.log" 2>&1 || {
        # One broken target should not cost the rest of a device call: build everything else.
        cmake --build build-gpu --parallel "${JOBS:-$(nproc)}" -- -k 0 >>"$OUT/build.log" 2>&1
        grep -E "error|FAILED" "$OUT/build.log" | head -40
        return 1
    }
    echo "build: ok" | tee -a "$summary"
}
step_device() {
    { echo '```'; build-gpu/tools/ktune-cli/ktune device; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; echo '```'; } 2>&1 | tee -a "$summary"
}
step_tests() {
    (cd build-gpu && ctest --output-on-failure --timeout 600 -j 8) >"$OUT/ctest.log" 2>&1
    local rc=$?
    grep -E "tests passed|tests failed|Skipped|Failed|Passed" "$OUT/ctest.log" | tail -40 | tee -a "$summary"
    return $rc
}
# Benchmarks register here as they land: each defines step_<name> in bench/<claim>/gpu_step.sh
# (or gpu_step_<part>.sh, where several people add steps to one bench directory at once).
for f in bench/*/gpu_step.sh bench/*/gpu_step_*.sh; do [ -f "$f" ] && source "$f"; done

rc=0
for s in "${steps[@]}"; do
    echo "== step $s"
    if ! "step_$s"; then echo "step $s FAILED" | tee -a "$summary"; rc=1; fi
done
echo; cat "$summary"
exit $rc
