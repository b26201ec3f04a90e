# GPU steps of "any row length" (docs/perf/kernels.md, "Any row length"); sourced by
# bench/gpu/run.sh:   bash bench/gpu/run.sh build rows_check rows
# rows_check: every op's default against the reference on odd shapes (the gpu_ops test case).
# rows: every built-in op tuned on vocabulary-size rows, LLM hidden sizes and small/odd shapes,
# bf16 and fp32, against PyTorch (bench/ops/torch_rows.py: the protocol of `ktune tune
# --vs-torch`, one process for all problems). Table: $OUT/rows.txt; raw: $OUT/rows.jsonl.
# Knobs: ROWS_BUDGET (candidates a tune, default 12), ROWS_DEADLINE_S (default 240: tunes not
# started by then are skipped, so the step stays within ~5 minutes), ROWS_OPS, ROWS_SHAPES (row
# ops) and ROWS_OTHER_SHAPES (transpose, scale_bias_): subsets, space-separated.

step_rows_check() {
    local t=build-gpu/tests/gpu/gpu_ops
    [ -x "$t" ] || { echo "gpu_ops not built"; return 1; }
    KTUNE_WORKER=$PWD/build-gpu/src/worker/ktune-worker timeout 120 "$t" \
        "every op's default passes the reference check on odd shapes" 2>&1 | tail -5 |
        tee "$OUT/rows_check.txt"
    grep -q "All tests passed" "$OUT/rows_check.txt"
}

step_rows() {
    local k=build-gpu/tools/ktune-cli/ktune
    [ -x "$k" ] || { echo "ktune not built"; return 1; }
    local log=$OUT/rows.jsonl cache=$OUT/rows_cache.json t0=$SECONDS
    : >"$log"
    rm -f "$cache"
    export KTUNE_CUBIN_CACHE=$PWD/build-gpu/cubin
    # Vocabulary rows (Llama 2, odd, GPT-2, Llama 3, Qwen 2), hidden sizes, small/odd shapes.
    local row_shapes=${ROWS_SHAPES:-"4096x32000 4096x32001 4096x50257 2048x128256 1024x151936 8192x4096 8192x5120 8192x8192 8192x11008 8192x14336 3000x777 64x50257"}
    local other_shapes=${ROWS_OTHER_SHAPES:-"4096x32001 4096x50257 8192x11008 3000x777"}
    local ops=${ROWS_OPS:-"softmax layernorm rowsum transpose scale_bias_"}
    local torch_args=() op dt shapes
    for op in $ops; do
        shapes=$row_shapes
        case $op in transpose | scale_bias_) shapes=$other_shapes ;; esac
        for dt in bf16 fp32; do
            for s in $shapes; do torch_args+=("$op:$dt:$s"); done
        done
    done
    timeout 100 python3 bench/ops/torch_rows.py "${torch_args[@]}" >"$OUT/rows_torch.jsonl" \
        2>>"$OUT/rows_stderr.log" || echo "torch_rows.py failed or timed out" | tee -a "$OUT/rows_stderr.log"
    for op in $ops; do
        shapes=$row_shapes
        case $op in transpose | scale_bias_) shapes=$other_shapes ;; esac
        for dt in bf16 fp32; do
            if ((SECONDS - t0 > ${ROWS_DEADLINE_S:-240})); then
                echo "rows: deadline reached, $op $dt not tuned" | tee -a "$OUT/rows_stderr.log"
                continue
            fi
            local left=$((${ROWS_DEADLINE_S:-240} - (SECONDS - t0) + 15))
            local shape_args=()
            for s in $shapes; do shape_args+=(--shape "$s"); done
            timeout "$left" "$k" tune "$op" "${shape_args[@]}" --dtype "$dt" --budget "${ROWS_BUDGET:-12}" \
                --cache "$cache" --json 2>>"$OUT/rows_stderr.log" | python3 -c \
                'import json,sys; [print(json.dumps(t)) for t in json.load(sys.stdin)["tunes"]]' \
                >>"$log" || echo "rows: $op $dt failed or timed out" | tee -a "$OUT/rows_stderr.log"
        done
    done
    python3 bench/ops/rows_table.py "$log" "$OUT/rows_torch.jsonl" | tee "$OUT/rows.txt"
}
