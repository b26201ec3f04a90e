# GPU step of the metrics module (sourced by bench/gpu/run.sh): measured peaks vs the datasheet,
# the roofline unit tests (CUPTI host API on the real toolkit) and the roofline CLI.
step_metrics() {
    local build=${BUILD_DIR:-build-gpu} out=${OUT:-/tmp/ktune-out}
    mkdir -p "$out"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,clocks.max.sm --format=csv \
        > "$out/metrics_gpu.txt" 2>&1 || true
    for i in 1 2 3; do
        "$build/tools/ktune-cli/ktune" device --measure --json > "$out/metrics_measure_$i.json" \
            2> "$out/metrics_measure_$i.err" || echo "device --measure run $i failed: rc=$?"
    done
    "$build/tools/ktune-cli/ktune" device --measure | tee "$out/metrics_measure.txt"
    "$build/tests/unit/unit_metrics" > "$out/metrics_unit.txt" 2>&1; echo "unit_metrics rc=$?"
}
