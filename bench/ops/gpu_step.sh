# GPU steps of the built-in kernels; sourced by bench/gpu/run.sh:
#   bash bench/gpu/run.sh build kernels_check kernels_sweep pack
# kernels_hybrid (long rows, small-shape transposes), kernels_ring (refuted forms, flush probe):
# docs/perf/kernels.md#long-row-forms has the commands and figures.
# They reuse bench/tune's bench_tune binary as it is.

# The ops' GPU tests (tests/gpu/ops): the split-row (cluster) and sub-warp forms against the
# reference kernels, and 12-candidate tunes of every op and dtype.
step_kernels_check() {
    local t
    t=$(find build-gpu -name gpu_ops -type f -perm -u+x | head -1)
    [ -n "$t" ] || { echo "gpu_ops not built"; return 1; }
    # $KERNELS_CHECK_SPEC: a Catch test spec, e.g. "*cluster*,*warp*" for the kernel tests only.
    KTUNE_WORKER=$PWD/build-gpu/src/worker/ktune-worker "$t" ${KERNELS_CHECK_SPEC:+"$KERNELS_CHECK_SPEC"} \
        >"$OUT/kernels_check.txt" 2>&1
    local rc=$?
    tail -4 "$OUT/kernels_check.txt"
    return $rc
}

# Every op x dtype x benchmark shape, tuned (budget $KERNELS_BUDGET, default 64, strategy auto)
# vs the op's default, a same-size copy and PyTorch. $KERNELS_OPS / $KERNELS_DTYPES /
# $KERNELS_SHAPES narrow it, or $KERNELS_CASES lists "op:dtype:shape" triples.
step_kernels_sweep() {
    local b=build-gpu/bench/tune/bench_tune
    [ -x "$b" ] || { echo "bench_tune not built"; return 1; }
    export KTUNE_CUBIN_CACHE=$PWD/build-gpu/cubin
    local log=$OUT/kernels_sweep.jsonl
    : >"$log"
    python3 bench/ops/copy_sizes.py >"$OUT/kernels_copy.jsonl" 2>>"$OUT/kernels_stderr.log"
    python3 bench/tune/torch_ops.py >"$OUT/kernels_torch.jsonl" 2>>"$OUT/kernels_stderr.log"
    local op dt s cases=()
    if [ -n "${KERNELS_CASES:-}" ]; then
        read -r -a cases <<<"$KERNELS_CASES" # "op:dtype:shape ..."
    else
        for op in ${KERNELS_OPS:-softmax layernorm rowsum transpose}; do
            for dt in ${KERNELS_DTYPES:-fp32 bf16}; do
                for s in ${KERNELS_SHAPES:-4096x4096 8192x8192 16384x4096 32768x1024 4096x32768 1024x131072}; do
                    cases+=("$op:$dt:$s")
                done
            done
        done
    fi
    local c
    for c in "${cases[@]}"; do
        IFS=: read -r op dt s <<<"$c"
        $b tune "$op" "$s" "$dt" "${KERNELS_BUDGET:-64}" >>"$log" 2>>"$OUT/kernels_stderr.log"
    done
    python3 bench/ops/table.py "$log" "$OUT/kernels_torch.jsonl" "$OUT/kernels_copy.jsonl" |
        tee "$OUT/kernels_sweep.txt"
}

# bench_configs (the tuner's protocol: reference check, read-sweep L2 flush, >= 16 event-timed
# samples) over cases "op dtype shape substrings...": every config of the op's space matching a
# substring, beside the default. JSON lines in $OUT/NAME.jsonl, the table (best first per
# problem, % of the 512 MiB copy of kernels_copy.jsonl, timed here when absent) in $OUT/NAME.txt.
_ops_configs() { # NAME, seconds per case, cases...
    local name=$1 lim=$2 b=build-gpu/bench/ops/bench_configs c op dt s subs
    shift 2
    [ -x "$b" ] || { echo "bench_configs not built"; return 1; }
    local log=$OUT/$name.jsonl
    : >"$log"
    [ -s "$OUT/kernels_copy.jsonl" ] ||
        timeout 60 python3 bench/ops/copy_sizes.py >"$OUT/kernels_copy.jsonl" 2>>"$OUT/kernels_stderr.log"
    for c in "$@"; do
        read -r op dt s subs <<<"$c"
        # shellcheck disable=SC2086 # the substrings are separate arguments
        timeout "$lim" "$b" "$op" "$s" "$dt" $subs >>"$log" 2>>"$OUT/kernels_stderr.log" ||
            echo "$op $dt $s: bench_configs failed or timed out" | tee -a "$OUT/kernels_stderr.log"
        python3 bench/ops/stage_table.py "$log" "$OUT/kernels_copy.jsonl" >"$OUT/$name.txt"
    done
}

# The row ops' stage=smem_tma configs one by one beside the default and the earlier tuned
# winner (no search in between), on the shapes they were made for; transpose: its default and
# that winner. bench/ops/bench_configs. docs/perf/kernels.md#staged-rows.
# Table: $OUT/kernels_stage.txt (GB/s by the byte model; % of the 512 MiB copy when
# kernels_copy.jsonl exists from step kernels_sweep or this step's own copy timing).
step_kernels_stage() {
    # op dtype shape, stage=smem_tma, then the earlier tuned winner (docs/perf/tune.md#split-rows).
    local cases=(
        "softmax bf16 4096x32768 stage=smem_tma threads_per_row=128,rows_per_block=1,vec=8,cache_row=true,unroll=1,cluster=4,"
        "softmax bf16 1024x131072 stage=smem_tma threads_per_row=256,rows_per_block=1,vec=8,cache_row=true,unroll=1,cluster=8,"
        "softmax bf16 8192x8192 stage=smem_tma threads_per_row=128,rows_per_block=1,vec=1,cache_row=true,unroll=1,cluster=2,"
        "softmax fp32 1024x131072 stage=smem_tma threads_per_row=256,rows_per_block=1,vec=4,cache_row=true,unroll=1,cluster=8,"
        "layernorm fp32 4096x32768 stage=smem_tma threads_per_row=128,rows_per_block=1,vec=2,cache_row=true,unroll=1,cluster=8,"
        "layernorm fp32 1024x131072 stage=smem_tma threads_per_row=256,rows_per_block=1,vec=4,cache_row=true,unroll=1,cluster=8,"
        "layernorm bf16 8192x8192 stage=smem_tma threads_per_row=256,rows_per_block=1,vec=4,cache_row=false,unroll=2,cluster=1,"
        "layernorm bf16 4096x32768 stage=smem_tma threads_per_row=1024,rows_per_block=1,vec=8,cache_row=false,unroll=1,cluster=1,"
        "layernorm bf16 1024x131072 stage=smem_tma threads_per_row=256,rows_per_block=4,vec=4,cache_row=false,unroll=2,cluster=1,"
        "rowsum bf16 8192x8192 stage=smem_tma threads_per_row=256,rows_per_block=1,vec=8,unroll=4,"
        "rowsum bf16 16384x4096 stage=smem_tma threads_per_row=256,rows_per_block=1,vec=8,unroll=4,"
        "transpose bf16 8192x8192 stage=smem_tma tile=64,block_rows=16,vec=8,pad=1,pack=0,"
        "transpose bf16 32768x1024 stage=smem_tma tile=64,block_rows=16,vec=8,pad=1,pack=0,"
        "transpose fp32 8192x8192 stage=smem_tma tile=64,block_rows=8,vec=2,pad=1,pack=0,"
    )
    _ops_configs kernels_stage 60 "${cases[@]}" && cat "$OUT/kernels_stage.txt"
}

# One ncu look (SpeedOfLight + MemoryWorkloadAnalysis) at the earlier tuned winners that stay under
# 85 %: what binds bf16 rowsum and bf16 transpose. $OUT/kernels_ncu.txt.
step_kernels_ncu() {
    local b=build-gpu/bench/ops/bench_configs
    [ -x "$b" ] || { echo "bench_configs not built"; return 1; }
    local c op dt s cfg cases=()
    : >"$OUT/kernels_ncu.txt"
    # $KERNELS_NCU_CASES: "op dtype shape config;..." instead of the list below.
    if [ -n "${KERNELS_NCU_CASES:-}" ]; then
        IFS=';' read -r -a cases <<<"$KERNELS_NCU_CASES"
    else
        cases=("rowsum bf16 8192x8192 threads_per_row=256,rows_per_block=1,vec=8,unroll=4,stage=regs"
            "transpose bf16 8192x8192 tile=64,block_rows=16,vec=8,pad=1,pack=0"
            "softmax bf16 4096x32768 threads_per_row=128,rows_per_block=1,vec=8,cache_row=true,unroll=1,cluster=4,stage=regs")
    fi
    for c in "${cases[@]}"; do
        read -r op dt s cfg <<<"$c"
        echo "== $op $dt $s $cfg" >>"$OUT/kernels_ncu.txt"
        # The check launches the reference first, then the candidate: skip 1, profile 1.
        BENCH_CONFIGS_NO_DEFAULT=1 timeout 90 ncu --target-processes all -k regex:ktune_op_kernel \
            --launch-skip 1 --launch-count 1 --section SpeedOfLight \
            --section MemoryWorkloadAnalysis "$b" "$op" "$s" "$dt" "$cfg" \
            >>"$OUT/kernels_ncu.txt" 2>&1 || echo "ncu failed or timed out" >>"$OUT/kernels_ncu.txt"
    done
    grep -E "^==|Memory Throughput|DRAM Throughput|Duration|Compute \(SM\)|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|Mem Pipes" "$OUT/kernels_ncu.txt" | head -60
}

# The longest rows (docs/perf/kernels.md#longest-rows; 1024x131072: 256 KiB bf16 / 512 KiB fp32
# per row, fewer rows than 8 per SM) config by config: every register-cached config split over a cluster and
# every staged config, beside the default, for the three row-op problems still under 85 %.
# Table: $OUT/kernels_long.txt (all configs, best first per problem).
step_kernels_long() {
    local c cases=()
    for c in "softmax bf16" "layernorm bf16" "layernorm fp32" "softmax fp32"; do
        cases+=("$c 1024x131072 cluster=2,stage=regs cluster=4,stage=regs cluster=8,stage=regs stage=smem_tma")
    done
    _ops_configs kernels_long 40 "${cases[@]}" && head -8 "$OUT/kernels_long.txt"
}

# The forms made for the 9 large rows still under 85 % (docs/perf/kernels.md#long-row-forms),
# config by config beside the default and the longest-rows step's winner: transpose's 128-tiles
# and micro form (vec x vec register micro-tiles through a swizzled 16-byte shared tile). Then
# how much of a 128 MiB op's time is the flush's dirty-line write-back (bench/ops/flush_probe.py).
# The row ops' ring (stage=smem_ring) this step also timed was refuted and removed (its source: e37011d).
# Tables: $OUT/kernels_ring.txt (best first per problem), $OUT/kernels_flush.jsonl.
step_kernels_ring() {
    local cases=(
        "transpose bf16 8192x8192 tile=128, form=micro tile=64,block_rows=16,vec=8,pad=1,pack=1,"
        "transpose bf16 16384x4096 tile=128, form=micro tile=64,block_rows=16,vec=8,pad=1,pack=1,"
        "transpose bf16 1024x131072 tile=128, form=micro tile=64,block_rows=16,vec=8,pad=1,pack=1,"
        "transpose fp32 8192x8192 tile=128, form=micro tile=64,block_rows=8,vec=2,pad=1,pack=0,"
    )
    _ops_configs kernels_ring 60 "${cases[@]}" || return 1
    timeout 60 python3 bench/ops/flush_probe.py >"$OUT/kernels_flush.jsonl" 2>>"$OUT/kernels_stderr.log"
    grep -A3 -E "^[a-z]+ (bf16|fp32)" "$OUT/kernels_ring.txt" | head -60
    cat "$OUT/kernels_flush.jsonl"
}

# One block per 256 KiB row (192 KiB staged, the tail in registers; fp32 in clusters of 2)
# beside the best cluster configs of kernels_long on the longest rows, and the transpose
# micro form (now the default) beside run 2's tuned tiles on the small shapes the 32-row sweep
# leaves out. Table: $OUT/kernels_hybrid.txt (best first per problem).
step_kernels_hybrid() {
    local cases=(
        "softmax bf16 1024x131072 cluster=1,stage=smem_tma threads_per_row=256,rows_per_block=1,vec=2,cache_row=true,unroll=1,cluster=8,stage=regs"
        "layernorm bf16 1024x131072 cluster=1,stage=smem_tma threads_per_row=512,rows_per_block=1,vec=8,cache_row=true,unroll=1,cluster=4,stage=smem_tma"
        "layernorm fp32 1024x131072 cluster=2,stage=smem_tma threads_per_row=512,rows_per_block=1,vec=4,cache_row=true,unroll=1,cluster=8,stage=smem_tma"
        "softmax fp32 1024x131072 cluster=2,stage=smem_tma"
        "layernorm bf16 4096x32768 stage=smem_tma"
        "transpose bf16 4096x4096 form=micro tile=64,block_rows=8,vec=8,pad=1,pack=0,"
        "transpose bf16 32768x1024 form=micro tile=32,block_rows=4,vec=2,pad=1,pack=1,"
        "transpose fp32 4096x4096 form=micro tile=32,block_rows=8,vec=4,pad=1,pack=0,"
        "transpose fp32 32768x1024 form=micro tile=32,block_rows=8,vec=4,pad=1,pack=0,"
    )
    _ops_configs kernels_hybrid 60 "${cases[@]}" || return 1
    grep -A3 -E "^[a-z]+ (bf16|fp32)" "$OUT/kernels_hybrid.txt" | head -50
}

# stage=smem_refill was timed by a step kernels_refill (commit e37011d: bench_configs over the
# refill configs beside the defaults). Refuted (10-15 points slower on the H200), then removed
# from the ops with its step (op versions 5). docs/perf/kernels.md#smem-refill.
