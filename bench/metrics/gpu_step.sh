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

# ktune's range profiler vs ncu on the same suite (bench_roofline_vs_ncu): DRAM bytes, tensor
# FLOPs vs 2N^3, class agreement, and wall time against ncu's roofline section.
step_metrics_ncu() {
    local build=${BUILD_DIR:-build-gpu} out=${OUT:-/tmp/ktune-out}
    local bin="$build/bench/metrics/bench_roofline_vs_ncu"
    mkdir -p "$out"
    local t0 t1 t2 t3
    t0=$(date +%s.%N)
    "$bin" --mode ktune --out "$out/metrics_ktune.json" >"$out/metrics_ktune.log" 2>&1
    t1=$(date +%s.%N)
    ncu --clock-control none --print-units base --csv --page raw --metrics \
gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed \
        "$bin" --mode plain >"$out/metrics_ncu.csv" 2>"$out/metrics_ncu.err"
    t2=$(date +%s.%N)
    ncu --clock-control none --section SpeedOfLight_RooflineChart "$bin" --mode plain \
        >"$out/metrics_ncu_roofline.txt" 2>&1
    t3=$(date +%s.%N)
    "$build/tools/ktune-cli/ktune" roofline "$out/metrics_ktune.json" --latency-pct 60 --json \
        >"$out/metrics_roofline.json"
    "$build/tools/ktune-cli/ktune" roofline "$out/metrics_ktune.json" --svg "$out/metrics_roofline.svg" \
        >"$out/metrics_roofline.txt"
    {
        python3 bench/metrics/compare.py "$out/metrics_ktune.json" "$out/metrics_ncu.csv" \
            "$out/metrics_roofline.json"
        echo "wall: ktune range profiler $(echo "$t1 - $t0" | bc) s; ncu --section" \
             "SpeedOfLight_RooflineChart $(echo "$t3 - $t2" | bc) s; ncu metric list $(echo "$t2 - $t1" | bc) s"
    } | tee "$out/metrics_vs_ncu.md" | tee -a "${summary:-/dev/null}"
}
