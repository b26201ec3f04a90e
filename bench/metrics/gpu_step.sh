# GPU steps of the metrics module (sourced by bench/gpu/run.sh; run as
# `bash bench/gpu/run.sh build metrics metrics_ncu metrics_wall`). No `bc` on the GPU image:
# times come from bash's EPOCHREALTIME and awk.
# Needs targets ktune_cli, ktune_inject, unit_metrics, gpu_metrics, bench_roofline_vs_ncu.

# Seconds since $1 (an EPOCHREALTIME value).
_metrics_since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'; }

# Measured peaks vs the datasheet, the range profiler on real kernels (DRAM bytes of a copy,
# exact FFMA count), the metric-set unit tests.
step_metrics() {
    local build=${BUILD_DIR:-build-gpu} out=${OUT:-/tmp/ktune-out}
    mkdir -p "$out"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,clocks.max.sm --format=csv \
        >"$out/metrics_gpu.txt" 2>&1 || true
    "$build/tools/ktune-cli/ktune" device --measure --json >"$out/metrics_peaks.json" 2>&1 ||
        echo "device --measure failed: rc=$?"
    "$build/tools/ktune-cli/ktune" device --measure | tee "$out/metrics_measure.txt"
    "$build/tests/gpu/gpu_metrics" 2>&1 | tee "$out/metrics_gpu_test.txt" | tail -20
    "$build/tests/unit/unit_metrics" >"$out/metrics_unit.txt" 2>&1
    echo "unit_metrics rc=$?" | tee -a "${summary:-/dev/null}"
}

# The suite (bench_roofline_vs_ncu --mode plain: 15 kernels of known work) under
# `ktune profile --metrics roofline` (every launch sampled) and under ncu, launch by launch.
# Cache state: the 2026-11-21 H200 run used ncu --cache-control none and saw ncu count fewer DRAM
# writes than the bytes written (part still in L2 when its range ended) while ktune's range
# counted them all (copy: 2 x 256 MiB exactly), so ncu now runs with its default flush
# (--cache-control all), expected to match ktune (not yet measured); docs/perf/metrics.md.
step_metrics_ncu() {
    local build=${BUILD_DIR:-build-gpu} out=${OUT:-/tmp/ktune-out}
    local bin="$build/bench/metrics/bench_roofline_vs_ncu" ktune="$build/tools/ktune-cli/ktune"
    mkdir -p "$out"
    local t
    t=$EPOCHREALTIME
    "$bin" --mode plain --manifest "$out/metrics_manifest.json" >"$out/metrics_plain.log" 2>&1
    local plain_s; plain_s=$(_metrics_since "$t")
    t=$EPOCHREALTIME
    "$ktune" profile --metrics roofline --max-metric-kernels 100 --max-per-kernel 10 --no-top \
        -o "$out/metrics_suite.ktrace" -- "$bin" --mode plain >"$out/metrics_suite.log" 2>&1
    local ktune_s; ktune_s=$(_metrics_since "$t")
    "$ktune" roofline "$out/metrics_suite.ktrace" --latency-pct 60 --json \
        --dump-metrics "$out/metrics_suite_values.json" >"$out/metrics_roofline.json"
    "$ktune" roofline "$out/metrics_suite.ktrace" --latency-pct 60 \
        --svg "$out/metrics_roofline.svg" >"$out/metrics_roofline.txt" 2>&1
    t=$EPOCHREALTIME
    ncu --cache-control all --clock-control none --print-units base --csv --page raw --metrics \
gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed \
        "$bin" --mode plain >"$out/metrics_ncu.csv" 2>"$out/metrics_ncu.err"
    local ncu_s; ncu_s=$(_metrics_since "$t")
    t=$EPOCHREALTIME
    ncu --cache-control all --clock-control none --section SpeedOfLight_RooflineChart \
        "$bin" --mode plain >"$out/metrics_ncu_roofline.txt" 2>&1
    local ncu_rf_s; ncu_rf_s=$(_metrics_since "$t")
    {
        python3 bench/metrics/compare.py "$out/metrics_suite_values.json" \
            "$out/metrics_roofline.json" "$out/metrics_ncu.csv" "$out/metrics_manifest.json"
        echo "wall (s): suite alone $plain_s; ktune profile --metrics roofline (every launch)" \
             "$ktune_s; ncu metric list $ncu_s; ncu --section SpeedOfLight_RooflineChart $ncu_rf_s"
    } 2>&1 | tee "$out/metrics_ncu.txt" | tee -a "${summary:-/dev/null}"
}

# Wall time of metrics for the 10 hottest kernels of a PyTorch workload: ktune (first launch of
# each, --kernels REGEX --max-metric-kernels 10) vs ncu's roofline section on the same names
# (same regex on mangled names, --launch-count 10).
step_metrics_wall() {
    local build=${BUILD_DIR:-build-gpu} out=${OUT:-/tmp/ktune-out}
    local ktune="$build/tools/ktune-cli/ktune" py=bench/profile/transformer_layer.py t
    mkdir -p "$out"
    t=$EPOCHREALTIME
    python3 "$py" >"$out/metrics_wall_plain.log" 2>&1
    local plain_s; plain_s=$(_metrics_since "$t")
    "$ktune" profile --no-top -o "$out/metrics_tl.ktrace" -- python3 "$py" \
        >"$out/metrics_wall_trace.log" 2>&1
    "$ktune" top "$out/metrics_tl.ktrace" --json --limit 10 >"$out/metrics_tl_top.json"
    local re
    re=$(python3 -c 'import json, re, sys
rows = json.load(open(sys.argv[1]))["rows"][:10]
print("^(" + "|".join(re.escape(r["mangled"]) for r in rows) + ")$")' "$out/metrics_tl_top.json")
    t=$EPOCHREALTIME
    "$ktune" profile --metrics roofline --kernels "$re" --max-metric-kernels 10 --no-top \
        -o "$out/metrics_tl_metrics.ktrace" -- python3 "$py" >"$out/metrics_wall_ktune.log" 2>&1
    local ktune_s; ktune_s=$(_metrics_since "$t")
    "$ktune" roofline "$out/metrics_tl_metrics.ktrace" >"$out/metrics_tl_roofline.txt" 2>&1
    t=$EPOCHREALTIME
    ncu --clock-control none --section SpeedOfLight_RooflineChart --kernel-name-base mangled \
        --kernel-name "regex:$re" --launch-count 10 python3 "$py" >"$out/metrics_wall_ncu.log" 2>&1
    local ncu_s; ncu_s=$(_metrics_since "$t")
    {
        echo "transformer_layer.py wall (s): alone $plain_s; ktune profile --metrics roofline" \
             "(10 kernels) $ktune_s; ncu --section SpeedOfLight_RooflineChart (10 launches) $ncu_s"
        grep -c '^  [^ ].*(' "$out/metrics_wall_ncu.log" | sed 's/^/ncu kernel blocks printed: /'
        tail -3 "$out/metrics_wall_ktune.log"
        head -4 "$out/metrics_tl_roofline.txt"
    } 2>&1 | tee "$out/metrics_wall.txt" | tee -a "${summary:-/dev/null}"
}
