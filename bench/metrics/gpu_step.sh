# GPU step of the metrics module (sourced by bench/gpu/run.sh; run as
# `bash bench/gpu/run.sh build metrics`): measured peaks vs the datasheet, the range profiler on
# real kernels (DRAM bytes of a copy, exact FFMA count), the metric-set unit tests.
# Needs targets ktune_cli, unit_metrics and gpu_metrics in ${BUILD_DIR:-build-gpu}.
step_metrics() {
    local build=${BUILD_DIR:-build-gpu} out=${OUT:-/tmp/ktune-out}
    mkdir -p "$out"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,clocks.max.sm --format=csv \
        >"$out/metrics_gpu.txt" 2>&1 || true
    for i in 1 2 3; do
        "$build/tools/ktune-cli/ktune" device --measure --json >"$out/metrics_measure_$i.json" \
            2>&1 || echo "device --measure run $i failed: rc=$?"
    done
    "$build/tools/ktune-cli/ktune" device --measure | tee "$out/metrics_measure.txt"
    "$build/tests/gpu/gpu_metrics" 2>&1 | tee "$out/metrics_gpu_test.txt" | tail -20
    "$build/tests/unit/unit_metrics" >"$out/metrics_unit.txt" 2>&1
    echo "unit_metrics rc=$?" | tee -a "${summary:-/dev/null}"
}
