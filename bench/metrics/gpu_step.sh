# GPU steps of the metrics module (sourced by bench/gpu/run.sh; run as
# `bash bench/gpu/run.sh build metrics metrics_replay metrics_replay_wall`: the figures of
# docs/perf/metrics.md#replay-launches; metrics_ncu and metrics_wall are the kernel-replay
# comparisons of docs/perf/metrics.md#cache-control). No `bc` on the GPU image: times come from
# bash's EPOCHREALTIME and awk.
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

# Median and range of a list of seconds: "median (min..max)".
_metrics_stats() {
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%.2f (%.2f..%.2f)", m, v[1], v[NR] }'
}

# ncu's metric list for the suite: DRAM bytes, tensor and FMA counts, its SpeedOfLight
# throughputs, ktune's level metrics, and (with $1 = breakdown) the parts of its memory
# throughput, to see which unit binds each kernel.
_metrics_ncu_list() {
    local m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
    m+=,sm__ops_path_tensor_src_bf16_dst_fp32.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum
    m+=,sm__throughput.avg.pct_of_peak_sustained_elapsed
    m+=,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed
    m+=,lts__t_sectors.avg.pct_of_peak_sustained_elapsed
    m+=,l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed
    m+=,l1tex__data_bank_writes.avg.pct_of_peak_sustained_elapsed
    m+=,l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed
    m+=,sm__inst_executed.avg.pct_of_peak_sustained_elapsed
    [ "${1:-}" = breakdown ] &&
        m+=,breakdown:gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed
    echo "$m"
}

# The suite (bench_roofline_vs_ncu --mode plain: 13 workloads, 17 launches) under
# ktune profile --metrics roofline (every launch sampled) and ncu, with each tool's cache control
# all and none: 4 pairings, launch by launch (compare.py), to see which pairing agrees on DRAM
# bytes within 2 % and why the others do not. ncu with --clock-control none like ktune.
step_metrics_ncu() {
    local build=${BUILD_DIR:-build-gpu} out=${OUT:-/tmp/ktune-out}
    local bin="$build/bench/metrics/bench_roofline_vs_ncu" ktune="$build/tools/ktune-cli/ktune"
    local lim=${METRICS_STEP_TIMEOUT:-60} cc t
    mkdir -p "$out"
    "$bin" --mode plain --manifest "$out/metrics_manifest.json" >"$out/metrics_plain.log" 2>&1
    for cc in all none; do
        t=$EPOCHREALTIME
        timeout "$lim" "$ktune" profile --metrics roofline --replay kernel --cache-control $cc \
            --max-metric-kernels 100 --max-per-kernel 10 --no-top \
            -o "$out/metrics_suite_$cc.ktrace" -- "$bin" --mode plain \
            >"$out/metrics_suite_$cc.log" 2>&1
        echo "ktune --cache-control $cc: rc $? in $(_metrics_since "$t") s" | tee -a "$out/metrics_ncu.txt"
        "$ktune" roofline "$out/metrics_suite_$cc.ktrace" --latency-pct 60 --json \
            --dump-metrics "$out/metrics_suite_${cc}_values.json" >"$out/metrics_roofline_$cc.json"
        "$ktune" roofline "$out/metrics_suite_$cc.ktrace" --latency-pct 60 \
            --svg "$out/metrics_roofline_$cc.svg" >"$out/metrics_roofline_$cc.txt" 2>&1
    done
    for cc in all none; do
        local extra=""
        [ $cc = all ] && extra=breakdown
        t=$EPOCHREALTIME
        timeout "$lim" ncu --cache-control $cc --clock-control none --print-units base --csv \
            --page raw --metrics "$(_metrics_ncu_list $extra)" "$bin" --mode plain \
            >"$out/metrics_ncu_$cc.csv" 2>"$out/metrics_ncu_$cc.err"
        echo "ncu --cache-control $cc: rc $? in $(_metrics_since "$t") s" | tee -a "$out/metrics_ncu.txt"
    done
    local k n
    for k in all none; do
        for n in all none; do
            python3 bench/metrics/compare.py "$out/metrics_suite_${k}_values.json" \
                "$out/metrics_roofline_$k.json" "$out/metrics_ncu_$n.csv" \
                "$out/metrics_manifest.json" "ktune $k / ncu $n" 2>&1 |
                tee -a "$out/metrics_ncu.txt" | grep '^\[' | tee -a "${summary:-/dev/null}"
        done
    done
}

# Wall time of metrics for the 10 hottest kernels of a PyTorch workload, each kernel profiled
# once by both tools: ktune --kernels RE --max-per-kernel 1 and ncu --section
# SpeedOfLight_RooflineChart --kernel-id ::regex:RE:1 (first invocation of each matching
# kernel), RE = the 10 hottest mangled names from an unprofiled-metrics trace. Rounds of
# {alone, ktune, ncu} interleaved (METRICS_WALL_ROUNDS, default 3). Then the C++ suite
# (start-up does not dominate), first launch of every kernel by both tools.
step_metrics_wall() {
    local build=${BUILD_DIR:-build-gpu} out=${OUT:-/tmp/ktune-out}
    local ktune="$build/tools/ktune-cli/ktune" py=bench/profile/transformer_layer.py t r
    local bin="$build/bench/metrics/bench_roofline_vs_ncu" rounds=${METRICS_WALL_ROUNDS:-3}
    local lim=${METRICS_STEP_TIMEOUT:-60} txt="$out/metrics_wall.txt"
    mkdir -p "$out"
    timeout "$lim" "$ktune" profile --no-top -o "$out/metrics_tl.ktrace" -- python3 "$py" \
        >"$out/metrics_wall_trace.log" 2>&1
    "$ktune" top "$out/metrics_tl.ktrace" --json --limit 10 >"$out/metrics_tl_top.json"
    local re
    re=$(python3 -c 'import json, re, sys
rows = json.load(open(sys.argv[1]))["rows"][:10]
print("^(" + "|".join(re.escape(r["mangled"]) for r in rows) + ")$")' "$out/metrics_tl_top.json")
    local -a a_tl k_tl n_tl a_su k_su n_su
    for ((r = 1; r <= rounds; ++r)); do
        t=$EPOCHREALTIME
        timeout "$lim" python3 "$py" >"$out/metrics_wall_plain.log" 2>&1
        a_tl+=("$(_metrics_since "$t")")
        t=$EPOCHREALTIME
        timeout "$lim" "$ktune" profile --metrics roofline --replay kernel --kernels "$re" \
            --max-metric-kernels 10 --max-per-kernel 1 --no-top -o "$out/metrics_tl_metrics.ktrace" -- python3 "$py" \
            >"$out/metrics_wall_ktune.log" 2>&1
        k_tl+=("$(_metrics_since "$t")")
        t=$EPOCHREALTIME
        timeout "$lim" ncu --clock-control none --section SpeedOfLight_RooflineChart \
            --kernel-name-base mangled --kernel-id "::regex:$re:1" python3 "$py" \
            >"$out/metrics_wall_ncu.log" 2>&1
        n_tl+=("$(_metrics_since "$t")")
        echo "transformer round $r: alone ${a_tl[-1]} s, ktune ${k_tl[-1]} s, ncu ${n_tl[-1]} s" |
            tee -a "$txt"
    done
    for ((r = 1; r <= rounds; ++r)); do
        t=$EPOCHREALTIME
        timeout "$lim" "$bin" --mode plain >"$out/metrics_wall_suite_plain.log" 2>&1
        a_su+=("$(_metrics_since "$t")")
        t=$EPOCHREALTIME
        timeout "$lim" "$ktune" profile --metrics roofline --replay kernel \
            --max-metric-kernels 100 --max-per-kernel 1 --no-top -o "$out/metrics_wall_suite.ktrace" -- "$bin" --mode plain \
            >"$out/metrics_wall_suite_ktune.log" 2>&1
        k_su+=("$(_metrics_since "$t")")
        t=$EPOCHREALTIME
        timeout "$lim" ncu --clock-control none --section SpeedOfLight_RooflineChart \
            --kernel-id ":::1" "$bin" --mode plain >"$out/metrics_wall_suite_ncu.log" 2>&1
        n_su+=("$(_metrics_since "$t")")
        echo "suite round $r: alone ${a_su[-1]} s, ktune ${k_su[-1]} s, ncu ${n_su[-1]} s" |
            tee -a "$txt"
    done
    # Added time over the unprofiled run of the same round.
    local -a k_tl_add n_tl_add k_su_add n_su_add
    for ((r = 0; r < rounds; ++r)); do
        k_tl_add+=("$(awk -v a="${k_tl[r]}" -v b="${a_tl[r]}" 'BEGIN{print a-b}')")
        n_tl_add+=("$(awk -v a="${n_tl[r]}" -v b="${a_tl[r]}" 'BEGIN{print a-b}')")
        k_su_add+=("$(awk -v a="${k_su[r]}" -v b="${a_su[r]}" 'BEGIN{print a-b}')")
        n_su_add+=("$(awk -v a="${n_su[r]}" -v b="${a_su[r]}" 'BEGIN{print a-b}')")
    done
    {
        echo "transformer_layer.py, $rounds rounds, median (min..max) s:"
        echo "  alone $(_metrics_stats "${a_tl[@]}"); ktune $(_metrics_stats "${k_tl[@]}");" \
             "ncu $(_metrics_stats "${n_tl[@]}")"
        echo "  added over alone: ktune $(_metrics_stats "${k_tl_add[@]}");" \
             "ncu $(_metrics_stats "${n_tl_add[@]}")"
        echo "  kernels profiled: ncu $(grep -c '==PROF== Profiling' "$out/metrics_wall_ncu.log")," \
             "ktune: $(grep 'ktune: metrics' "$out/metrics_wall_ktune.log" | tail -1)"
        echo "suite (bench_roofline_vs_ncu), $rounds rounds, median (min..max) s:"
        echo "  alone $(_metrics_stats "${a_su[@]}"); ktune $(_metrics_stats "${k_su[@]}");" \
             "ncu $(_metrics_stats "${n_su[@]}")"
        echo "  added over alone: ktune $(_metrics_stats "${k_su_add[@]}");" \
             "ncu $(_metrics_stats "${n_su_add[@]}")"
        echo "  kernels profiled: ncu $(grep -c '==PROF== Profiling' "$out/metrics_wall_suite_ncu.log")," \
             "ktune: $(grep 'ktune: metrics' "$out/metrics_wall_suite_ktune.log" | tail -1)"
        "$ktune" roofline "$out/metrics_tl_metrics.ktrace" 2>&1 | head -30
    } 2>&1 | tee -a "$txt" | tee -a "${summary:-/dev/null}"
}

# Not yet run on a GPU: the one-pass hypothesis. With more than one
# replay pass, CUPTI's kernel replay saves device memory inside the launch, after ktune's flush,
# and the pass that counts DRAM starts with ~15-24 MB of dirty lines that ktune then counts as
# writes (docs/perf/metrics.md#cache-control). A set that fits one pass (time + DRAM read/write:
# 1 pass on GH100, CUPTI host API) needs no replay; with --cache-control all its range should
# start clean, as ncu's --cache-control all passes do. Compares DRAM bytes with ncu's, both
# cache controls, on the suite; the table is $OUT/metrics_onepass.txt.
step_metrics_onepass() {
    local build=${BUILD_DIR:-build-gpu} out=${OUT:-/tmp/ktune-out}
    local bin="$build/bench/metrics/bench_roofline_vs_ncu" ktune="$build/tools/ktune-cli/ktune"
    local lim=${METRICS_STEP_TIMEOUT:-60} set=gpu__time_duration.sum,dram__bytes_read.sum
    set+=,dram__bytes_write.sum
    mkdir -p "$out"
    [ -f "$out/metrics_manifest.json" ] ||
        "$bin" --mode plain --manifest "$out/metrics_manifest.json" >/dev/null 2>&1
    local cc n
    for cc in all none; do
        timeout "$lim" "$ktune" profile --metrics "$set" --max-passes 1 --replay kernel \
            --cache-control $cc \
            --max-metric-kernels 100 --max-per-kernel 10 --no-top \
            -o "$out/metrics_onepass_$cc.ktrace" -- "$bin" --mode plain \
            >"$out/metrics_onepass_$cc.log" 2>&1
        "$ktune" roofline "$out/metrics_onepass_$cc.ktrace" --latency-pct 60 --json \
            --dump-metrics "$out/metrics_onepass_${cc}_values.json" \
            >"$out/metrics_onepass_roofline_$cc.json"
        [ -f "$out/metrics_ncu_$cc.csv" ] ||
            timeout "$lim" ncu --cache-control $cc --clock-control none --print-units base \
                --csv --page raw --metrics "$(_metrics_ncu_list)" "$bin" --mode plain \
                >"$out/metrics_ncu_$cc.csv" 2>"$out/metrics_ncu_$cc.err"
    done
    for cc in all none; do
        for n in all none; do
            python3 bench/metrics/compare.py "$out/metrics_onepass_${cc}_values.json" \
                "$out/metrics_onepass_roofline_$cc.json" "$out/metrics_ncu_$n.csv" \
                "$out/metrics_manifest.json" "one-pass ktune $cc / ncu $n" 2>&1 |
                tee -a "$out/metrics_onepass.txt" | grep '^\[' | grep DRAM |
                tee -a "${summary:-/dev/null}"
        done
    done
}

# --replay launches (the roofline set's passes on later natural launches, nothing replayed, the
# L2 flush right before each counting range) against --replay kernel and ncu, DRAM bytes and
# class per workload. The suite runs each workload 4 times in a row (--repeat 4): the warm-up
# launch and the 3 a 3-pass set needs (the first runs used --repeat 3, before the warm-up). ncu's
# DRAM counters are the same whatever else it collects; its `all` run adds the SpeedOfLight
# throughputs for the class. Table: $OUT/metrics_replay.txt.
step_metrics_replay() {
    local build=${BUILD_DIR:-build-gpu} out=${OUT:-/tmp/ktune-out}
    local bin="$build/bench/metrics/bench_roofline_vs_ncu" ktune="$build/tools/ktune-cli/ktune"
    local lim=${METRICS_STEP_TIMEOUT:-40} txt="$out/metrics_replay.txt" t mode cc cfg
    local m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
    # ncu's default (all) also reads its SpeedOfLight throughputs, for the class comparison.
    local sol=,sm__throughput.avg.pct_of_peak_sustained_elapsed
    sol+=,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed
    mkdir -p "$out"
    "$bin" --mode plain --repeat 4 --manifest "$out/metrics_r_manifest.json" \
        >"$out/metrics_r_plain.log" 2>&1
    for cc in all none; do
        local mm=$m
        [ $cc = all ] && mm+=$sol
        t=$EPOCHREALTIME
        timeout "$lim" ncu --cache-control $cc --clock-control none --print-units base --csv \
            --page raw --metrics "$mm" "$bin" --mode plain --repeat 4 \
            >"$out/metrics_r_ncu_$cc.csv" 2>"$out/metrics_r_ncu_$cc.err"
        echo "ncu --cache-control $cc: rc $? in $(_metrics_since "$t") s" | tee -a "$txt"
    done
    # METRICS_REPLAY_CONFIGS: which "mode:cache" pairs of ktune run (all four by default).
    for cfg in ${METRICS_REPLAY_CONFIGS:-launches:all launches:none kernel:all kernel:none}; do
        mode=${cfg%%:*} cc=${cfg##*:}
        {
            t=$EPOCHREALTIME
            timeout "$lim" "$ktune" profile --metrics roofline --replay $mode --cache-control $cc \
                --max-metric-kernels 100 --max-per-kernel 10 --no-top \
                -o "$out/metrics_r_${mode}_$cc.ktrace" -- "$bin" --mode plain --repeat 4 \
                >"$out/metrics_r_${mode}_$cc.log" 2>&1
            echo "ktune --replay $mode --cache-control $cc: rc $? in $(_metrics_since "$t") s" |
                tee -a "$txt"
            grep 'ktune: metrics' "$out/metrics_r_${mode}_$cc.log" | tail -2 | tee -a "$txt"
            "$ktune" roofline "$out/metrics_r_${mode}_$cc.ktrace" --latency-pct 60 \
                --dump-metrics "$out/metrics_r_${mode}_${cc}_values.json" \
                >"$out/metrics_r_roofline_${mode}_$cc.txt" 2>&1
            "$ktune" roofline "$out/metrics_r_${mode}_$cc.ktrace" --latency-pct 60 --json \
                >"$out/metrics_r_roofline_${mode}_$cc.json" 2>/dev/null
            local n
            for n in all none; do
                python3 bench/metrics/compare_replay.py "$out/metrics_r_${mode}_${cc}_values.json" \
                    "$out/metrics_r_ncu_$n.csv" "$out/metrics_r_manifest.json" \
                    "ktune $mode $cc / ncu $n" "$out/metrics_r_roofline_${mode}_$cc.json" 2>&1 |
                    tee -a "$txt" | grep '^\[' | tee -a "${summary:-/dev/null}"
            done
        }
    done
}

# Wall time, --replay launches vs kernel vs ncu, metrics for the 10 hottest kernels of a PyTorch
# forward loop (bench/profile/transformer_layer.py 40: 40 forwards) and for the suite (--repeat 4),
# each kernel profiled once (ktune --max-per-kernel 1: one sample, 3 launches in launches mode;
# ncu: first invocation). Interleaved rounds (METRICS_WALL_ROUNDS, default 3) of {alone, ktune
# kernel, ktune launches, ncu}; the table is $OUT/metrics_replay_wall.txt.
step_metrics_replay_wall() {
    local build=${BUILD_DIR:-build-gpu} out=${OUT:-/tmp/ktune-out}
    local ktune="$build/tools/ktune-cli/ktune" py pyargs t r w re
    local bin="$build/bench/metrics/bench_roofline_vs_ncu" rounds=${METRICS_WALL_ROUNDS:-3}
    local lim=${METRICS_STEP_TIMEOUT:-40} txt="$out/metrics_replay_wall.txt"
    mkdir -p "$out"
    # Workloads: tr = PyTorch training loop (train_loop.py), tl = PyTorch inference loop
    # (transformer_layer.py 40), su = the C++ suite. A PyTorch workload's 10 hottest kernels come
    # from an unprofiled trace of the same script.
    for w in ${METRICS_WALL_WORKLOADS:-tr tl su}; do
        local -a A=() K=() L=() N=() cmd=()
        case $w in
        tr) py=bench/metrics/train_loop.py pyargs=() ;;
        tl) py=bench/profile/transformer_layer.py pyargs=(40) ;;
        *) py= ;;
        esac
        if [ -n "$py" ]; then
            cmd=(python3 "$py" "${pyargs[@]}")
            timeout "$lim" "$ktune" profile --no-top -o "$out/metrics_${w}.ktrace" -- "${cmd[@]}" \
                >"$out/metrics_${w}_trace.log" 2>&1
            "$ktune" top "$out/metrics_${w}.ktrace" --json --limit 10 >"$out/metrics_${w}_top.json"
            re=$(python3 -c 'import json, re, sys
rows = json.load(open(sys.argv[1]))["rows"][:10]
print("^(" + "|".join(re.escape(r["mangled"]) for r in rows) + ")$")' "$out/metrics_${w}_top.json")
        else
            cmd=("$bin" --mode plain --repeat 4)
        fi
        local sel=(--kernels "$re" --max-metric-kernels 10) nsel=(--kernel-name-base mangled
            --kernel-id "::regex:$re:1")
        [ $w = su ] && sel=(--max-metric-kernels 100) nsel=(--kernel-id ":::1")
        for ((r = 1; r <= rounds; ++r)); do
            t=$EPOCHREALTIME
            timeout "$lim" "${cmd[@]}" >"$out/metrics_rw_${w}_plain.log" 2>&1
            A+=("$(_metrics_since "$t")")
            t=$EPOCHREALTIME
            timeout "$lim" "$ktune" profile --metrics roofline --replay kernel "${sel[@]}" \
                --max-per-kernel 1 --no-top -o "$out/metrics_rw_${w}_kernel.ktrace" -- \
                "${cmd[@]}" >"$out/metrics_rw_${w}_kernel.log" 2>&1
            K+=("$(_metrics_since "$t")")
            t=$EPOCHREALTIME
            timeout "$lim" "$ktune" profile --metrics roofline --replay launches "${sel[@]}" \
                --max-per-kernel 1 --no-top -o "$out/metrics_rw_${w}_launches.ktrace" -- \
                "${cmd[@]}" >"$out/metrics_rw_${w}_launches.log" 2>&1
            L+=("$(_metrics_since "$t")")
            t=$EPOCHREALTIME
            timeout "$lim" ncu --clock-control none --section SpeedOfLight_RooflineChart \
                "${nsel[@]}" "${cmd[@]}" >"$out/metrics_rw_${w}_ncu.log" 2>&1
            N+=("$(_metrics_since "$t")")
            echo "$w round $r: alone ${A[-1]} s, ktune kernel ${K[-1]} s, ktune launches" \
                "${L[-1]} s, ncu ${N[-1]} s" | tee -a "$txt"
        done
        local -a KA=() LA=() NA=()
        for ((r = 0; r < ${#N[@]}; ++r)); do
            KA+=("$(awk -v a="${K[r]}" -v b="${A[r]}" 'BEGIN{print a-b}')")
            LA+=("$(awk -v a="${L[r]}" -v b="${A[r]}" 'BEGIN{print a-b}')")
            NA+=("$(awk -v a="${N[r]}" -v b="${A[r]}" 'BEGIN{print a-b}')")
        done
        {
            echo "$w: ${#N[@]} rounds, median (min..max) s: alone $(_metrics_stats "${A[@]}");" \
                "ktune kernel $(_metrics_stats "${K[@]}"); ktune launches $(_metrics_stats "${L[@]}");" \
                "ncu $(_metrics_stats "${N[@]}")"
            echo "  added: ktune kernel $(_metrics_stats "${KA[@]}"); ktune launches" \
                "$(_metrics_stats "${LA[@]}"); ncu $(_metrics_stats "${NA[@]}")"
            echo "  profiled: ncu $(grep -c '==PROF== Profiling' "$out/metrics_rw_${w}_ncu.log");" \
                "kernel: $(grep 'ktune: metrics' "$out/metrics_rw_${w}_kernel.log" | tail -1);" \
                "launches: $(grep 'ktune: metrics' "$out/metrics_rw_${w}_launches.log" | tail -1)"
            "$ktune" roofline "$out/metrics_rw_${w}_launches.ktrace" 2>&1 | head -40
        } 2>&1 | tee -a "$txt" | tee -a "${summary:-/dev/null}"
    done
}

# Where a range-profiler pass's time goes (docs/perf/metrics.md#pass-cost): bench_range_probe times every CUPTI call
# for today's one-range-per-pass launches mode and for one pass covering 10 kernels as 10 ranges
# (user ranges with/without a sync before the pop, auto range; with L2 flush, unselected kernels
# between ranges, reversed order in pass 1), checking each range's DRAM bytes / FFMA count.
# Table: $OUT/metrics_probe.txt. Needs target bench_range_probe.
step_metrics_probe() {
    local build=${BUILD_DIR:-build-gpu} out=${OUT:-/tmp/ktune-out}
    mkdir -p "$out"
    timeout "${METRICS_STEP_TIMEOUT:-90}" "$build/bench/metrics/bench_range_probe" --reps 3 \
        >"$out/metrics_probe.txt" 2>&1
    echo "bench_range_probe rc=$?" | tee -a "$out/metrics_probe.txt" | tee -a "${summary:-/dev/null}"
    grep -v '^    range' "$out/metrics_probe.txt"
}
