#!/usr/bin/env bash
# One device call for ktune tune gemm: build only what it needs, then the named steps (gpu_tests:
# the gpu_gemm test; the others from bench/gemm/gpu_step.sh), each under a time limit.
# Usage: bash bench/gemm/device_call.sh STEP:SECONDS...
set -uo pipefail
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
if [ -d .carry/root ]; then
    export CMAKE_PREFIX_PATH=$PWD/.carry/root/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
    export CPATH=$PWD/.carry/root/usr/include${CPATH:+:$CPATH}
    export LIBRARY_PATH=$PWD/.carry/root/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}
    export LD_LIBRARY_PATH=$PWD/.carry/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
t0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DKTUNE_WERROR=OFF \
    -DKTUNE_WITH_XGBOOST=OFF -DKTUNE_BUILD_EXAMPLES=OFF >"$OUT/build.log" 2>&1
ninja -C build-gpu -k 0 ktune_cli gpu_gemm bench_gemm_overhead >>"$OUT/build.log" 2>&1 ||
    grep -E "error|FAILED" "$OUT/build.log" | head -20
echo "build: $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv
date -u +%Y-%m-%dT%H:%M:%SZ
source bench/gemm/gpu_step.sh
for s in "$@"; do
    name=${s%%:*} limit=${s##*:}
    echo "== $name (limit ${limit}s)"
    ts=$(date +%s)
    export GEMM_DEADLINE=$(( ts + limit - 15 ))
    case $name in
    gpu_tests) timeout "$limit" "$(find build-gpu -name gpu_gemm -type f | head -1)" 2>&1 | tail -40 | tee "$OUT/gemm_tests.txt" ;;
    *) timeout "$limit" bash -c "source bench/gemm/gpu_step.sh; step_$name" ;;
    esac
    echo "== $name: rc $? in $(( $(date +%s) - ts )) s"
done
# The device call returns a few files only: the per-chunk JSON and logs travel as one archive.
(cd "$OUT" && ls gemm_*.json gemm_*.err >/dev/null 2>&1 &&
    tar -czf gemm_results.tar.gz gemm_*.json gemm_*.err && rm -f gemm_*.json gemm_*.err && rm -rf gemm_plans)
