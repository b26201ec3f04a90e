# GPU steps of ktune tune gemm (sourced by bench/gpu/run.sh, or run through
# bench/gemm/device_call.sh STEP:SECONDS...). Results in $OUT/gemm_*.json, tables in
# $OUT/gemm_*.md; docs/perf/gemm.md says which claim each step measures.
_gemm_bin() { echo "${KTUNE_BIN:-$PWD/build-gpu/tools/ktune-cli/ktune}"; }

# Tunes every plan chunk of kind $1 (shapes.py) until the deadline ($GEMM_DEADLINE, epoch s).
_gemm_plans() {
    local kind=$1; shift
    python3 bench/gemm/shapes.py "$kind" "$OUT/gemm_plans" 8 >/dev/null
    for f in "$OUT"/gemm_plans/"$kind"_*.json; do
        if [ -n "${GEMM_DEADLINE:-}" ] && [ "$(date +%s)" -ge "$GEMM_DEADLINE" ]; then
            echo "deadline: $f and later chunks not run"; break
        fi
        local base; base=$(basename "$f" .json)
        local t0; t0=$(date +%s.%N)
        "$(_gemm_bin)" tune gemm --plan "$f" --json "$@" >"$OUT/gemm_$base.json" 2>"$OUT/gemm_$base.err"
        echo "$base: rc $? in $(python3 -c "import time; print(round(time.time() - $t0, 1))") s"
    done
}

# LLM shapes, bf16 and fp8: gain over cuBLAS's default per shape, tune time.
step_gemm() {
    # The measured bf16 tensor roof the reports divide by (saved per GPU name).
    "$(_gemm_bin)" device --measure >"$OUT/gemm_device_measure.txt" 2>&1
    _gemm_plans llm --strategy auto --budget "${GEMM_BUDGET:-16}" --heuristic-count 8
    python3 bench/gemm/summarize.py "$OUT"/gemm_llm_*.json | tee "$OUT/gemm_llm.md"
}
# More bf16 shapes for the heuristic-vs-best distribution (with step_gemm: >= 100 shapes).
step_gemm_extra() {
    _gemm_plans extra --strategy auto --budget "${GEMM_BUDGET:-16}" --heuristic-count 8
    python3 bench/gemm/summarize.py "$OUT"/gemm_llm_*.json "$OUT"/gemm_extra_*.json | tee "$OUT/gemm_all.md"
}
# Host cost of the run-time call against a plain cublasLtMatmul.
step_gemm_overhead() {
    local b; b=$(find build-gpu -name bench_gemm_overhead -type f | head -1)
    for s in 1x4096x4096 16x8192x8192; do "$b" "$s" bf16; done | tee "$OUT/gemm_overhead.jsonl"
}
# A few shapes with torch.matmul timed beside (same protocol, graph + rotation).
step_gemm_torch() {
    for s in 1x4096x4096 16x11008x4096 4096x4096x4096 8192x8192x8192; do
        "$(_gemm_bin)" tune gemm --shape "$s" --dtype bf16 --budget 16 --heuristic-count 8 --vs-torch 2>&1
    done | tee "$OUT/gemm_torch.txt"
}
