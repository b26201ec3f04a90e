# GPU steps of layernorm's long rows; sourced by bench/gpu/run.sh:
#   bash bench/gpu/run.sh build ln_ncu ln_rows ln_check pack
# The final defaults beside their twins (~60 s after the build):
#   bash bench/gpu/run.sh build ln_check ln_final ln_sass pack
# ln_rows_defaults: the two-rows-at-once defaults vs the one-row ones, ncu on them, the GPU test.
# docs/perf/kernels.md#layernorm-long-rows has the commands and figures. Every sub-step is under
# `timeout` and writes its table as it goes (a timed-out call still returns data).

# What binds layernorm's long rows: ncu metrics (L2 sectors read/written, L2 and DRAM
# throughput, L1 hit rate, registers, local-memory spill traffic) of the defaults and of the
# rows-at-once form (stage smem_rows). $OUT/ln_ncu.txt (raw), $OUT/ln_ncu_summary.txt.
ln_metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,\
dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors.sum,\
lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,\
lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_bytes.sum.per_second,\
l1tex__t_sector_hit_rate.pct,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,\
l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum,\
sm__throughput.avg.pct_of_peak_sustained_elapsed
step_ln_ncu() {
    local b=build-gpu/bench/ops/bench_configs
    [ -x "$b" ] || { echo "bench_configs not built"; return 1; }
    # "dtype shape config" ("default": the op's default alone, else the config by substring).
    local cases=(
        "fp32 1024x131072 default"
        "bf16 1024x131072 default"
        "bf16 4096x32768 default"
        "bf16 1024x131072 threads_per_row=1024,rows_per_block=1,vec=8,cache_row=true,unroll=1,cluster=1,stage=smem_tma"
        "fp32 1024x131072 threads_per_row=1024,rows_per_block=2,vec=4,cache_row=true,unroll=1,cluster=8,stage=smem_rows"
        "bf16 1024x131072 threads_per_row=512,rows_per_block=2,vec=8,cache_row=true,unroll=1,cluster=8,stage=smem_rows"
        "bf16 4096x32768 threads_per_row=512,rows_per_block=2,vec=8,cache_row=true,unroll=1,cluster=2,stage=smem_rows"
    )
    # $LN_NCU_CASES: "dtype shape config;..." instead of the list above; $LN_NCU_EXTRA: more
    # metrics, comma-separated (in the raw file only); $LN_NCU_OP: another op (e.g. transpose).
    [ -n "${LN_NCU_CASES:-}" ] && IFS=';' read -r -a cases <<<"$LN_NCU_CASES"
    : >"$OUT/ln_ncu.txt"
    local c dt s cfg
    for c in "${cases[@]}"; do
        read -r dt s cfg <<<"$c"
        echo "== layernorm $dt $s $cfg" >>"$OUT/ln_ncu.txt"
        local env=(BENCH_CONFIGS_NO_DEFAULT=1)
        local args=("$cfg")
        [ "$cfg" = default ] && env=() && args=()
        # The check launches the reference first, then the candidate: skip 1, profile 1.
        env "${env[@]}" timeout 60 ncu --target-processes all -k regex:ktune_op_kernel \
            --launch-skip 1 --launch-count 1 --metrics "$ln_metrics${LN_NCU_EXTRA:+,$LN_NCU_EXTRA}" \
            --csv --page raw \
            "$b" "${LN_NCU_OP:-layernorm}" "$s" "$dt" "${args[@]}" >>"$OUT/ln_ncu.txt" 2>&1 ||
            echo "ncu failed or timed out" >>"$OUT/ln_ncu.txt"
        python3 bench/ops/ln_ncu_table.py "$OUT/ln_ncu.txt" >"$OUT/ln_ncu_summary.txt" 2>&1
    done
    cat "$OUT/ln_ncu_summary.txt"
}

# The rows-at-once form (stage smem_rows: rows_per_block rows staged at once, gamma/beta read
# once for all of them) config by config beside the default, % of the 512 MiB copy timed in the
# same step. $LN_ROWS_CASES: "dtype:shape ..."; $LN_ROWS_EXTRA: more config substrings (e.g. the
# previous defaults). $OUT/ln_rows.txt (best first per problem).
step_ln_rows() {
    local b=build-gpu/bench/ops/bench_configs
    [ -x "$b" ] || { echo "bench_configs not built"; return 1; }
    local log=$OUT/ln_rows.jsonl
    : >"$log"
    [ -s "$OUT/ln_copy.jsonl" ] ||
        timeout 60 python3 bench/ops/copy_sizes.py >"$OUT/ln_copy.jsonl" 2>>"$OUT/ln_stderr.log"
    local c dt s
    for c in ${LN_ROWS_CASES:-bf16:1024x131072 fp32:1024x131072 bf16:4096x32768 fp32:4096x32768}; do
        IFS=: read -r dt s <<<"$c"
        # shellcheck disable=SC2086 # extra substrings are separate arguments
        timeout 70 "$b" layernorm "$s" "$dt" stage=smem_rows ${LN_ROWS_EXTRA:-} >>"$log" \
            2>>"$OUT/ln_stderr.log" ||
            echo "layernorm $dt $s: bench_configs failed or timed out" | tee -a "$OUT/ln_stderr.log"
        python3 bench/ops/stage_table.py "$log" "$OUT/ln_copy.jsonl" >"$OUT/ln_rows.txt"
    done
    grep -A6 -E "^layernorm (bf16|fp32)" "$OUT/ln_rows.txt" | head -40
}

# The GPU test of the form (odd row counts, partial row groups, clusters 1-8).
step_ln_check() {
    local t
    t=$(find build-gpu -name gpu_ops -type f -perm -u+x | head -1)
    [ -n "$t" ] || { echo "gpu_ops not built"; return 1; }
    KTUNE_WORKER=$PWD/build-gpu/src/worker/ktune-worker timeout 90 "$t" \
        "${LN_CHECK_SPEC:-*register tails*,*smem_rows*,*default*}" >"$OUT/ln_check.txt" 2>&1
    local rc=$?
    tail -4 "$OUT/ln_check.txt"
    return $rc
}

# The bf16 defaults (two rows at once) beside the former one-row ones, every smem_rows config of
# the space, fp32 1024x131072's default beside its smem_rows configs, ncu on the new defaults,
# the GPU test. About 60 s after the build. (A column-slice form, smem_cols, was also timed,
# refuted and removed: docs/perf/kernels.md#layernorm-long-rows.)
step_ln_rows_defaults() {
    local old="threads_per_row=512,rows_per_block=1,vec=8,cache_row=true,unroll=1"
    LN_ROWS_CASES="bf16:1024x131072 bf16:4096x32768 fp32:1024x131072" \
        LN_ROWS_EXTRA="$old,cluster=4,stage=smem_tma $old,cluster=1,stage=smem_tma" \
        step_ln_rows
    LN_NCU_CASES="bf16 1024x131072 default;bf16 4096x32768 default" step_ln_ncu
    step_ln_check
}

# The store loops' fixes (docs/perf/kernels.md#layernorm-register-tails) (gamma/beta prefetch before the statistics
# exchange, packed bf16 conversion, vectors by value: no 16-bit shared loads), register tails
# for smem_rows over 112 KiB (two blocks a SM), fp32 4096x32768 at one block a row. Hand-set
# keys (gb_prefetch, packed_cvt, rows_reg_tail) give each form's twin at equal configs through
# BENCH_CONFIGS_SET. $OUT/ln_r2.txt (best first per problem, % of the copy timed in this step).
step_ln_r2() {
    local b=build-gpu/bench/ops/bench_configs
    [ -x "$b" ] || { echo "bench_configs not built"; return 1; }
    local log=$OUT/ln_r2.jsonl
    : >"$log"
    [ -s "$OUT/ln_copy.jsonl" ] ||
        timeout 60 python3 bench/ops/copy_sizes.py >"$OUT/ln_copy.jsonl" 2>>"$OUT/ln_stderr.log"
    local old="gb_prefetch=0,packed_cvt=false" none="no-such-config"
    # "dtype shape|SET|substrings...": SET empty for none.
    local cases=(
        "bf16 1024x131072|$old;gb_prefetch=0;gb_prefetch=4|$none"
        "bf16 1024x131072||stage=smem"
        "bf16 1024x131072|rows_reg_tail=false|cluster=4,stage=smem_rows"
        "bf16 4096x32768|$old;gb_prefetch=0;gb_prefetch=4|$none"
        "bf16 4096x32768||stage=smem_rows cluster=1,stage=smem_tma"
        "bf16 4096x32768|rows_reg_tail=false|cluster=1,stage=smem_rows"
        "fp32 1024x131072|gb_prefetch=0;gb_prefetch=2;gb_prefetch=4|$none"
        "fp32 1024x131072||stage=smem"
        "fp32 1024x131072|rows_reg_tail=false|stage=smem_rows"
        "fp32 4096x32768|gb_prefetch=0|threads_per_row=1024,rows_per_block=1,vec=4,cache_row=true,unroll=1,cluster=1,stage=smem_tma"
        "fp32 4096x32768||stage=smem_rows"
    )
    [ -n "${LN_R2_CASES:-}" ] && IFS='#' read -r -a cases <<<"$LN_R2_CASES"
    local c head set subs dt s
    for c in "${cases[@]}"; do
        IFS='|' read -r head set subs <<<"$c"
        read -r dt s <<<"$head"
        # shellcheck disable=SC2086 # substrings are separate arguments
        BENCH_CONFIGS_SET="$set" timeout "${LN_R2_TIMEOUT:-60}" "$b" "${LN_R2_OP:-layernorm}" "$s" "$dt" $subs >>"$log" \
            2>>"$OUT/ln_stderr.log" ||
            echo "layernorm $dt $s ($subs): bench_configs failed or timed out" |
            tee -a "$OUT/ln_stderr.log"
        python3 bench/ops/stage_table.py "$log" "$OUT/ln_copy.jsonl" >"$OUT/ln_r2.txt"
    done
    grep -A8 -E "^${LN_R2_OP:-layernorm} (bf16|fp32)" "$OUT/ln_r2.txt" | head -60
}

# Registers, spills and the memory/conversion opcode mix (SASS) of the defaults and their
# former twins: bench/ops/sass.sh (shared by the ops). $OUT/ln_sass.txt.
step_ln_sass() {
    local b=build-gpu/bench/ops/bench_configs d=$OUT/ln_sass
    [ -x "$b" ] || { echo "bench_configs not built"; return 1; }
    : >"$OUT/ln_sass.txt"
    local k="vec=8,cache_row=true,unroll=1"
    BENCH_CONFIGS_SET="gb_prefetch=0,packed_cvt=false" timeout 100 bash bench/ops/sass.sh "$b" \
        "$d/bf" layernorm 1024x131072 bf16 "threads_per_row=256,rows_per_block=1,$k,cluster=8,stage=smem_tma" \
        "threads_per_row=256,rows_per_block=2,$k,cluster=8,stage=smem_rows" >>"$OUT/ln_sass.txt" 2>&1
    timeout 60 bash bench/ops/sass.sh "$b" "$d/bf4" layernorm 4096x32768 bf16 >>"$OUT/ln_sass.txt" 2>&1
    BENCH_CONFIGS_SET="gb_prefetch=0" timeout 100 bash bench/ops/sass.sh "$b" "$d/f" \
        layernorm 1024x131072 fp32 >>"$OUT/ln_sass.txt" 2>&1
    timeout 60 bash bench/ops/sass.sh "$b" "$d/f4" layernorm 4096x32768 fp32 >>"$OUT/ln_sass.txt" 2>&1
    grep -E "^==|registers" "$OUT/ln_sass.txt" | head -30
}

# The final defaults (one row per block of 256 threads; fp32 128 KiB slices with their
# tails in registers, two blocks a SM; bf16 131072 in 32 KiB slices) beside the former defaults
# and each form's twin: tma_reg_tail=false (staged whole, one block a SM), gb_prefetch /
# packed_cvt (the ring and the packed conversion off). ~30 s. Same table as ln_r2
# ($OUT/ln_r2.txt). (Commit d17f9de timed this as step ln_r2b, where tails were a key only.)
step_ln_final() {
    local k="vec=8,cache_row=true,unroll=1" f="vec=4,cache_row=true,unroll=1"
    local cases=(
        "bf16 1024x131072|gb_prefetch=0,packed_cvt=false|threads_per_row=512,rows_per_block=1,$k,cluster=4,stage=smem_tma threads_per_row=256,rows_per_block=2,$k,cluster=8,stage=smem_rows"
        "bf16 4096x32768|gb_prefetch=0,packed_cvt=false|threads_per_row=512,rows_per_block=2,$k,cluster=2,stage=smem_rows"
        "fp32 1024x131072|tma_reg_tail=false|threads_per_row=1024,rows_per_block=1,$f,cluster=2,stage=smem_tma"
        "fp32 4096x32768|tma_reg_tail=false|threads_per_row=512,rows_per_block=1,$f,cluster=2,stage=smem_tma threads_per_row=512,rows_per_block=2,$f,cluster=2,stage=smem_rows"
    )
    local all
    all=$(printf '%s#' "${cases[@]}")
    LN_R2_CASES="${all%#}" step_ln_r2
}
