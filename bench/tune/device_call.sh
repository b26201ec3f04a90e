#!/usr/bin/env bash
# One device call for the op tuner: build only what it needs, GPU tests, then the named steps of
# bench/tune/gpu_step.sh, each under a time limit. Usage: bash bench/tune/device_call.sh STEP:SECONDS...
# (gpu_tests:S runs unit_measure and gpu_tune.)
set -uo pipefail
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
t0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DKTUNE_WERROR=OFF \
    -DKTUNE_WITH_XGBOOST=OFF -DKTUNE_BUILD_EXAMPLES=${KTUNE_BUILD_EXAMPLES:-OFF} >"$OUT/build.log" 2>&1
ninja -C build-gpu -k 0 bench_tune ktune_cli ktune_worker ktune_inject gpu_tune unit_measure ${EXTRA_TARGETS:-} >>"$OUT/build.log" 2>&1 ||
    grep -E "error|FAILED" "$OUT/build.log" | head -20
echo "build: $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm,persistence_mode --format=csv
export KTUNE_WORKER=$PWD/build-gpu/src/worker/ktune-worker KTUNE_CUBIN_CACHE=$PWD/build-gpu/cubin
export KTUNE_TEST_COMPILE_SERVER=$PWD/build-gpu/src/worker/ktune-worker
source bench/tune/gpu_step.sh
for s in "$@"; do
    name=${s%%:*} limit=${s##*:}
    echo "== $name (limit ${limit}s)"
    ts=$(date +%s)
    case $name in
    gpu_tests)
        { timeout 60 "$(find build-gpu -name unit_measure -type f | head -1)" 2>&1 | tail -3
          timeout "$limit" "$(find build-gpu -name gpu_tune -type f | head -1)" 2>&1 | tail -25; } | tee "$OUT/tune_tests.txt" ;;
    *) export -f "step_$name"; timeout "$limit" bash -c "source bench/tune/gpu_step.sh; step_$name" ;;
    esac
    echo "== $name: rc $? in $(( $(date +%s) - ts )) s"
done
