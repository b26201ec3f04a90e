# GPU steps of the kernels (issue 7, session 2); sourced by bench/gpu/run.sh:
#   bash bench/gpu/run.sh build kernels_check kernels_sweep
# They reuse bench/tune's bench_tune binary as it is.

# The ops' GPU tests (tests/gpu/ops): the split-row (cluster) and sub-warp forms against the
# reference kernels, and 12-candidate tunes of every op and dtype.
step_kernels_check() {
    local t
    t=$(find build-gpu -name gpu_ops -type f -perm -u+x | head -1)
    [ -n "$t" ] || { echo "gpu_ops not built"; return 1; }
    # $KERNELS_CHECK_SPEC: a Catch test spec, e.g. "*cluster*,*warp*" for the kernel tests only.
    KTUNE_WORKER=$PWD/build-gpu/tools/ktune-cli/ktune "$t" ${KERNELS_CHECK_SPEC:+"$KERNELS_CHECK_SPEC"} \
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
