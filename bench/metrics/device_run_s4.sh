#!/usr/bin/env bash
# One `run` call for session 4 (many kernels per pass under --replay launches): build, gpu_metrics,
# step_metrics_probe (CUPTI call costs, once), step_metrics_replay_wall (wall time vs ncu),
# step_metrics_replay (DRAM and class vs ncu), inside a deadline; logs packed into
# $OUT/metrics_s4_all.tgz, the tables beside it.
#   DEADLINE_S=270 bash bench/metrics/device_run_s4.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
deadline=$((SECONDS + ${DEADLINE_S:-270}))
final_out=${OUT:-/tmp/ktune-out}
work=/tmp/metrics-out
mkdir -p "$work" "$final_out"
export PATH="/usr/local/cuda/bin:$PATH" PYTHONUNBUFFERED=1
left() { echo $((deadline - SECONDS)); }
pack() {
    tar czf "$final_out/metrics_s4_all.tgz" -C "$work" . 2>/dev/null
    cp "$work"/metrics_replay.txt "$work"/metrics_replay_wall.txt "$work"/gpu_test.txt \
        "$work"/metrics_probe.txt "$work"/build_tail.txt "$final_out/" 2>/dev/null
}
trap pack EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
# A build directory of its own, configured afresh: a machine left warm by another call may hold
# a build-gpu whose objects are newer than this checkout's files (tar keeps commit times), and
# ninja then relinks them without recompiling (seen in session 4's second call).
export BUILD_DIR=${BUILD_DIR:-/tmp/build-metrics-s4-$$}
rm -rf "$BUILD_DIR"
t=$SECONDS
timeout $(($(left) - 150)) env BUILD_TYPE=Release JOBS=16 \
    TARGET="ktune_cli ktune_inject bench_roofline_vs_ncu bench_range_probe gpu_metrics" \
    scripts/build.sh -DKTUNE_WERROR=OFF -DKTUNE_WITH_XGBOOST=OFF -DKTUNE_BUILD_EXAMPLES=OFF \
    >"$work/build.log" 2>&1
rc=$?
tail -30 "$work/build.log" >"$work/build_tail.txt"
echo "build rc $rc in $((SECONDS - t)) s; $(left) s left"
[ $rc -eq 0 ] || { tail -15 "$work/build.log"; exit 1; }
t=$SECONDS
timeout 40 "$BUILD_DIR/tests/gpu/gpu_metrics" >"$work/gpu_test.txt" 2>&1
echo "gpu_metrics rc $? in $((SECONDS - t)) s"
grep -E "launches|copy|fma|passed|failed|FAILED" "$work/gpu_test.txt" | head -14
t=$SECONDS
timeout 30 "$BUILD_DIR/bench/metrics/bench_range_probe" --reps 1 >"$work/metrics_probe.txt" 2>&1
echo "probe rc $? in $((SECONDS - t)) s"
grep -v '^    range' "$work/metrics_probe.txt" | cut -c1-110
for step in metrics_replay_wall metrics_replay; do
    budget=$(($(left) - 5))
    [ "$budget" -gt 15 ] || { echo "no time left for $step"; continue; }
    t=$SECONDS
    OUT=$work METRICS_STEP_TIMEOUT=30 METRICS_REPLAY_CONFIGS="launches:all kernel:all launches:none" \
        timeout "$budget" bash -c "source bench/metrics/gpu_step.sh; step_$step" \
        >"$work/step_$step.log" 2>&1
    echo "step $step rc $? in $((SECONDS - t)) s; $(left) s left"
    grep -E '^\[|round|median|added|profiled|rc |^Roofline|^metric set|^ +[0-9.]+ +[a-z]+ ' \
        "$work/step_$step.log" | cut -c1-160 | head -50
done
