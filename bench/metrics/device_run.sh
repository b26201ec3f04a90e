#!/usr/bin/env bash
# One `run` call of the metrics engineer on the GPU machine: build the metrics targets, then
# step_metrics_ncu and step_metrics_wall (gpu_step.sh) inside a deadline, then pack every output
# into $OUT/metrics_all.tgz (the device tool returns at most 8 files). Usage, from the repo root:
#   DEADLINE_S=315 bash bench/metrics/device_run.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
start=$SECONDS
deadline=$((start + ${DEADLINE_S:-315}))
final_out=${OUT:-/tmp/ktune-out}
work=/tmp/metrics-out
mkdir -p "$work" "$final_out"
export PATH="/usr/local/cuda/bin:$PATH" PYTHONUNBUFFERED=1
left() { echo $((deadline - SECONDS)); }
pack() {
    tar czf "$final_out/metrics_all.tgz" -C "$work" . 2>/dev/null
    cp "$work"/metrics_ncu.txt "$work"/metrics_wall.txt "$work"/build_tail.txt "$final_out/" 2>/dev/null
}
trap pack EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv \
    >"$work/gpu.txt" 2>&1
cat "$work/gpu.txt"
t=$SECONDS
timeout $(($(left) - 120)) env BUILD_DIR=build-gpu BUILD_TYPE=Release JOBS=16 \
    TARGET="ktune_cli ktune_inject bench_roofline_vs_ncu" scripts/build.sh -DKTUNE_WERROR=OFF \
    -DKTUNE_WITH_XGBOOST=OFF -DKTUNE_BUILD_EXAMPLES=OFF >"$work/build.log" 2>&1
rc=$?
tail -30 "$work/build.log" >"$work/build_tail.txt"
echo "build rc $rc in $((SECONDS - t)) s; $(left) s left"
[ $rc -eq 0 ] || exit 1
for step in metrics_ncu metrics_wall; do
    budget=$(($(left) - 10))
    [ "$budget" -gt 20 ] || { echo "no time left for $step"; continue; }
    t=$SECONDS
    OUT=$work timeout "$budget" bash -c "source bench/metrics/gpu_step.sh; step_$step" \
        >"$work/step_$step.log" 2>&1
    echo "step $step rc $? in $((SECONDS - t)) s; $(left) s left"
    grep -E '^\[|round|median|added|profiled|rc ' "$work/step_$step.log" | head -40
done
