#!/usr/bin/env bash
# One `run` call for --replay launches (session 3, run 2): build, gpu_metrics (the CUPTI user-
# replay sequence on known kernels), step_metrics_replay (DRAM vs ncu), step_metrics_replay_wall
# (wall time), inside a deadline; everything packed into $OUT/metrics_replay_all.tgz.
#   DEADLINE_S=190 bash bench/metrics/device_run_replay.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
deadline=$((SECONDS + ${DEADLINE_S:-190}))
final_out=${OUT:-/tmp/ktune-out}
work=/tmp/metrics-out
mkdir -p "$work" "$final_out"
export PATH="/usr/local/cuda/bin:$PATH" PYTHONUNBUFFERED=1
left() { echo $((deadline - SECONDS)); }
pack() {
    tar czf "$final_out/metrics_replay_all.tgz" -C "$work" . 2>/dev/null
    cp "$work"/metrics_replay.txt "$work"/metrics_replay_wall.txt "$work"/gpu_test.txt \
        "$work"/build_tail.txt "$final_out/" 2>/dev/null
}
trap pack EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
t=$SECONDS
timeout $(($(left) - 60)) env BUILD_DIR=build-gpu BUILD_TYPE=Release JOBS=16 \
    TARGET="ktune_cli ktune_inject bench_roofline_vs_ncu gpu_metrics" scripts/build.sh \
    -DKTUNE_WERROR=OFF -DKTUNE_WITH_XGBOOST=OFF -DKTUNE_BUILD_EXAMPLES=OFF >"$work/build.log" 2>&1
rc=$?
tail -30 "$work/build.log" >"$work/build_tail.txt"
echo "build rc $rc in $((SECONDS - t)) s; $(left) s left"
[ $rc -eq 0 ] || { tail -15 "$work/build.log"; exit 1; }
t=$SECONDS
timeout 25 build-gpu/tests/gpu/gpu_metrics "launches mode*" >"$work/gpu_test.txt" 2>&1
echo "gpu_metrics (launches) rc $? in $((SECONDS - t)) s"
grep -E "launches|copy|fma|passed|failed|FAILED" "$work/gpu_test.txt" | head -12
for step in metrics_replay metrics_replay_wall; do
    budget=$(($(left) - 5))
    [ "$budget" -gt 15 ] || { echo "no time left for $step"; continue; }
    t=$SECONDS
    OUT=$work METRICS_STEP_TIMEOUT=30 timeout "$budget" bash -c \
        "source bench/metrics/gpu_step.sh; step_$step" >"$work/step_$step.log" 2>&1
    echo "step $step rc $? in $((SECONDS - t)) s; $(left) s left"
    grep -E '^\[|round|median|added|profiled|rc ' "$work/step_$step.log" | head -40
done
