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
# TunableOp and an autotuned Triton GEMM beside ktune on the same shapes: time and tune time
# (docs/perf/gemm.md#side-by-side-tunableop-and-triton). GEMM_SBS_SHAPES: MxNxK list (space or
# comma separated; default `side_by_side.py --print-shapes`); GEMM_SBS_SECONDS: the deadline
# (300 s; ktune's tunes stop at 30 % of it, a shape under way when it passes finishes, so give
# the step 120 s more); GEMM_SBS_TRITON_WARM=0 skips Triton's warm-cache re-tune.
step_gemm_sbs() {
    local py=${KTUNE_PYTHON:-python3} kt shapes start end k_end s t0 rc
    local rows=$OUT/gemm_sbs.jsonl walls=$OUT/gemm_sbs_ktune_wall.jsonl
    mkdir -p "$OUT"
    shapes=${GEMM_SBS_SHAPES:-$("$py" bench/gemm/side_by_side.py --print-shapes)}
    shapes=${shapes//,/ }
    start=$(date +%s)
    end=$((start + ${GEMM_SBS_SECONDS:-300}))
    # Under device_call.sh the step's own limit comes first.
    if [ -n "${GEMM_DEADLINE:-}" ] && [ "$end" -gt $((GEMM_DEADLINE - 60)) ]; then
        end=$((GEMM_DEADLINE - 60))
    fi
    k_end=$((start + (end - start) * 3 / 10))
    : >"$walls"
    kt=$(_gemm_bin)
    if [ -x "$kt" ]; then
        for s in $shapes; do
            if [ "$(date +%s)" -ge "$k_end" ]; then
                echo "gemm_sbs: deadline: ktune tunes from $s on not run"
                break
            fi
            t0=$(date +%s.%N)
            "$kt" tune gemm --shape "$s" --dtype bf16 --budget 16 --heuristic-count 8 --json \
                --cache "$OUT/gemm_sbs_cache.json" >"$OUT/gemm_sbs_ktune_$s.json" \
                2>"$OUT/gemm_sbs_ktune_$s.err"
            rc=$?
            printf '{"schema": "ktune.gemm_sbs_wall", "shape": "%s", "wall_s": %s, "rc": %d}\n' \
                "$s" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')" \
                "$rc" | tee -a "$walls"
        done
    else
        echo "gemm_sbs: no ktune binary at $kt (run the build step or set KTUNE_BIN): the ktune" \
            "columns stay empty"
    fi
    local warm=()
    [ "${GEMM_SBS_TRITON_WARM:-1}" != 0 ] || warm=(--no-triton-warm)
    "$py" bench/gemm/side_by_side.py --shapes "$shapes" --deadline "$end" \
        --keep "$OUT/gemm_sbs_tunableop" "${warm[@]}" >"$rows"
    echo "gemm_sbs: side_by_side rc $? at $(($(date +%s) - start)) s"
    "$py" bench/gemm/sbs_table.py "$OUT"/gemm_sbs_ktune_*.json "$walls" "$rows" |
        tee "$OUT/gemm_sbs.md"
}

# Unaligned shapes (docs/perf/gemm.md#unaligned-shapes): cuBLAS's default pick against its own
# aligned-shape throughput, and ktune's pick on the same shape. GEMM_UNALIGNED_M: the token
# counts (default "16 2048"); the (N, K) pairs: aligned 4096x4096, N or K = 8 mod 16, odd, prime,
# K a multiple of 8 but not of 64.
step_gemm_unaligned() {
    local kt m nk s
    kt=$(_gemm_bin)
    mkdir -p "$OUT/gemm_unaligned"
    for m in ${GEMM_UNALIGNED_M:-16 2048}; do
        for nk in 4096x4096 4104x4096 4096x4104 4097x4096 4096x4097 4093x4093 4096x4040 11008x4040; do
            s=${m}x$nk
            "$kt" tune gemm --shape "$s" --dtype bf16 --budget 16 --heuristic-count 8 --json \
                --cache "$OUT/gemm_unaligned/cache.json" >"$OUT/gemm_unaligned/r_$s.json" \
                2>"$OUT/gemm_unaligned/r_$s.err" || echo "gemm_unaligned: $s rc $?"
        done
    done
    python3 bench/gemm/unaligned_table.py "$OUT"/gemm_unaligned/r_*.json |
        tee "$OUT/gemm_unaligned.md"
}
# ktune's Hopper GEMM template beside cuBLAS, one process (docs/perf/gemm.md#hopper-template).
# SM90_SHAPES: MxNxK list (default the issue's three large bf16 shapes); SM90_CONFIGS:
# "bn,stages,consumers,group[,cluster,epi_parts,tma_store[,splits[,cluster_b[,swap_ab]]]];..."
# (default bench_sm90's list);
# SM90_BEST=1 first tunes cuBLAS alone (`ktune tune gemm --cublaslt-only`, budget 16) and
# compares with the algorithm that tune picked: cuBLAS's best found. SM90_ROTATE=N: N copies of
# the operands, batches replayed from CUDA graphs (decode shapes; bench_sm90 --rotate).
# SM90_EPI (bias, relu_bias, gelu_bias): both sides fuse that epilogue (bench_sm90 --epilogue).
# SM90_EARLY_B=1: each config also timed told that B is weights (bench_sm90 --early-b;
# docs/perf/gemm.md#early-weights).
step_gemm_sm90() {
    local b s cache_args=()
    b=$(find build-gpu -name bench_sm90 -type f | head -1)
    for s in ${SM90_SHAPES:-4096x4096x4096 8192x8192x8192 2048x11008x4096}; do
        cache_args=()
        if [ "${SM90_BEST:-0}" = 1 ]; then
            "$(_gemm_bin)" tune gemm --shape "$s" --dtype bf16 --budget 16 --heuristic-count 8 \
                --epilogue "${SM90_EPI:-none}" --cublaslt-only --cache "$OUT/gemm_sm90_cache.json" >"$OUT/gemm_sm90_best_$s.txt" 2>&1
            cache_args=(--cache "$OUT/gemm_sm90_cache.json")
        fi
        "$b" "${cache_args[@]}" ${SM90_CONFIGS:+--configs "$SM90_CONFIGS"} \
            ${SM90_ROTATE:+--rotate "$SM90_ROTATE"} ${SM90_EPI:+--epilogue "$SM90_EPI"} \
            $([ "${SM90_EARLY_B:-0}" = 1 ] && echo --early-b) "$s"
    done | tee "$OUT/gemm_sm90.jsonl"
}
# A CUDA-core GEMV beside cuBLAS's best found at decode shapes, M <= 4 (docs/perf/gemm.md#gemv-decode):
# per shape a `--cublaslt-only` tune (budget 16), then bench_sm90 --gemv over 8 copies of the
# operands, graph-timed. GEMV_SHAPES: MxNxK list.
step_gemm_gemv() {
    local b s
    b=$(find build-gpu -name bench_sm90 -type f | head -1)
    for s in ${GEMV_SHAPES:-1x4096x4096 1x11008x4096 1x4096x11008 1x8192x8192 1x28672x8192 1x8192x28672 2x28672x8192 4x28672x8192}; do
        "$(_gemm_bin)" tune gemm --shape "$s" --dtype bf16 --budget 16 --heuristic-count 8 \
            --cublaslt-only --cache "$OUT/gemm_gemv_cache.json" >"$OUT/gemm_gemv_best_$s.txt" 2>&1
        "$b" --gemv --rotate 8 --cache "$OUT/gemm_gemv_cache.json" "$s"
    done | tee "$OUT/gemm_gemv.jsonl"
    python3 - "$OUT/gemm_gemv.jsonl" <<'PY' | tee "$OUT/gemm_gemv.txt"
import json, sys
best = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["status"] == "ok" and (r["shape"] not in best or r["us"][0] < best[r["shape"]]["us"][0]):
        best[r["shape"]] = r
    if r["status"] != "ok":
        print("WRONG", r["shape"], r["form"], r["bad"])
print("| shape | best GEMV form | GEMV us [min, max] | cuBLAS best us | cuBLAS / GEMV paired | weights GB/s |")
print("|---|---|---|---|---|---|")
for s, r in best.items():
    print(f"| {s} | {r['form']} | {r['us'][0]:.2f} [{r['us'][1]:.2f}, {r['us'][2]:.2f}] | "
          f"{r['cublas_us'][0]:.2f} | {r['vs_cublas_paired'][0]:.3f} [{r['vs_cublas_paired'][1]:.3f}, "
          f"{r['vs_cublas_paired'][2]:.3f}] | {r['weights_gbs']:.0f} |")
PY
}
# The read roof of decode weights (docs/perf/gemm.md#decode-read-roof): bench_sm90 --read-roof
# over $READ_ROOF_MIB (MiB; default the Llama-7B/70B projections' bf16 and fp8 weights).
step_gemm_read_roof() {
    local b
    b=$(find build-gpu -name bench_sm90 -type f | head -1)
    "$b" --read-roof "${READ_ROOF_MIB:-16,32,43,64,86,128,224,448}" | tee "$OUT/gemm_read_roof.jsonl"
}
# Decode GEMMs through the template's split-K (docs/perf/gemm.md#hopper-split-k): `ktune tune
# gemm` (cuBLASLt and the template in one space, graph-timed over rotated operand sets so the
# weights come from DRAM) on M in $SM90_DECODE_M x N x K in $SM90_DECODE_NK (default Llama-7B's
# projections), budget $SM90_DECODE_BUDGET (24); the table gives each time as % of the copy roof
# that `ktune device --measure` measures first. SM90_DECODE_DTYPE (bf16; fp16, fp8) and
# SM90_DECODE_EPI (none; bias, relu_bias, gelu_bias) set the problem's type and epilogue
# (docs/perf/gemm.md#hopper-types); SM90_DECODE_B=weights tunes with --b-operand weights
# (docs/perf/gemm.md#early-weights).
step_gemm_sm90_decode() {
    local kt d m nk s f
    kt=$(_gemm_bin)
    d=$OUT/gemm_sm90_decode
    mkdir -p "$d"
    "$kt" device --measure --json >"$d/device.json" 2>"$d/device.err" ||
        echo "gemm_sm90_decode: device --measure rc $?"
    for m in ${SM90_DECODE_M:-1 8 16 32 64}; do
        for nk in ${SM90_DECODE_NK:-4096x4096 11008x4096 4096x11008}; do
            s=${m}x$nk
            f=${s}_${SM90_DECODE_DTYPE:-bf16}_${SM90_DECODE_EPI:-none}_${SM90_DECODE_B:-written_before}
            "$kt" tune gemm --shape "$s" --dtype "${SM90_DECODE_DTYPE:-bf16}" \
                --epilogue "${SM90_DECODE_EPI:-none}" --budget "${SM90_DECODE_BUDGET:-24}" \
                --b-operand "${SM90_DECODE_B:-written_before}" \
                --heuristic-count 8 --json --cache "$d/cache.json" >"$d/r_$f.json" \
                2>"$d/r_$f.err" || echo "gemm_sm90_decode: $f rc $?"
            python3 bench/gemm/sm90_tune_table.py --copy "$d/device.json" "$d/r_$f.json" | tail -1
        done
    done
    python3 bench/gemm/sm90_tune_table.py --copy "$d/device.json" "$d"/r_*.json |
        tee "$OUT/gemm_sm90_decode.md"
}
# The correctness gate under planted bugs (docs/perf/gemm.md#hopper-faults): `ktune tune gemm
# --inject-faults $SM90_FAULT_RATE` (0.3 of the template's candidates) on $SM90_FAULT_SHAPES,
# seeds 1..$SM90_FAULT_SEEDS (3), type $SM90_FAULT_DTYPE (bf16) and epilogue $SM90_FAULT_EPI
# (none); the table counts the planted faults, the rejected ones and planted winners
# (bench/gemm/sm90_faults_table.py).
step_gemm_sm90_faults() {
    local kt d s seed
    kt=$(_gemm_bin)
    d=$OUT/gemm_sm90_faults
    mkdir -p "$d"
    for s in ${SM90_FAULT_SHAPES:-4096x4096x4096 2048x11008x4096 1x4096x4096 16x4096x11008 200x300x136}; do
        for seed in $(seq 1 "${SM90_FAULT_SEEDS:-3}"); do
            "$kt" tune gemm --shape "$s" --dtype "${SM90_FAULT_DTYPE:-bf16}" \
                --epilogue "${SM90_FAULT_EPI:-none}" --budget 24 --heuristic-count 8 \
                --inject-faults "${SM90_FAULT_RATE:-0.3}" --seed "$seed" --json \
                --cache "$d/cache.json" >"$d/f_${s}_$seed.json" 2>"$d/f_${s}_$seed.err" ||
                echo "gemm_sm90_faults: $s seed $seed rc $?"
        done
    done
    python3 bench/gemm/sm90_faults_table.py "$d"/f_*.json | tee "$OUT/gemm_sm90_faults.md"
}
# ncu on one launch of the sm90 template per config (SM90_NCU_CONFIGS, ';'-separated as
# SM90_CONFIGS; SM90_NCU_SHAPE): throughput, warp stalls, L2 traffic (docs/perf/gemm.md#hopper-template).
step_gemm_sm90_ncu() {
    local b c
    b=$(find build-gpu -name bench_sm90 -type f | head -1)
    IFS=';' read -ra cs <<<"${SM90_NCU_CONFIGS:-256,4,2,8,1;256,4,2,8,2}"
    for c in "${cs[@]}"; do
        echo "== $c"
        ncu -k ktune_sm90_gemm -c 1 --section SpeedOfLight --section WarpStateStats \
            --section MemoryWorkloadAnalysis --section LaunchStats \
            --metrics lts__t_bytes.sum,l1tex__m_xbar2l1tex_read_bytes.sum,smsp__cycles_active.avg \
            "$b" --configs "$c" "${SM90_NCU_SHAPE:-4096x4096x4096}" 2>&1 | grep -vE '^\{|^==PROF==' 
    done | tee "$OUT/gemm_sm90_ncu.txt"
}
# `ktune tune gemm` with ktune's Hopper template in the space (docs/perf/gemm.md#hopper-template):
# per SM90_SHAPES shape, the JSON report (budget SM90_BUDGET, default 32; SM90_DTYPE, default
# bf16; SM90_TUNE_ARGS more arguments, e.g. --epilogue gelu_bias), then
# bench/gemm/sm90_tune_table.py's table.
step_gemm_sm90_tune() {
    local s
    for s in ${SM90_SHAPES:-4096x4096x4096 8192x8192x8192 2048x11008x4096}; do
        "$(_gemm_bin)" tune gemm --shape "$s" --dtype "${SM90_DTYPE:-bf16}" \
            --budget "${SM90_BUDGET:-32}" --json \
            --cache "$OUT/gemm_sm90_tune_cache.json" ${SM90_TUNE_ARGS:-} >"$OUT/gemm_sm90_tune_$s.json"
        echo "$s: rc $?"
    done
    python3 bench/gemm/sm90_tune_table.py "$OUT"/gemm_sm90_tune_*.json | tee "$OUT/gemm_sm90_tune.md"
}
# Brute force of the template's space (docs/perf/gemm.md#hopper-template): every config the rules
# keep, per SM90_BRUTE_SHAPES shape, recorded as a replayable space (Kernel Tuner's cache
# format) in $OUT/gemm_sm90_space_<shape>.json; needs ktune-worker built (compile servers).
step_gemm_sm90_brute() {
    local b s
    b=$(find build-gpu -name bench_sm90 -type f | head -1)
    for s in ${SM90_BRUTE_SHAPES:-4096x4096x4096 2048x11008x4096}; do
        "$b" --brute "$OUT/gemm_sm90_space_$s.json" "$s"
    done 2>&1 | tee "$OUT/gemm_sm90_brute.txt"
}
# ncu on cuBLAS's GEMM and the template's, the first launches of one bench_sm90 shape
# (SM90_NCU_SHAPE, SM90_NCU_CONFIGS' first config): tensor-pipe activity, clocks, L2 and DRAM
# bytes, warp stalls side by side (docs/perf/gemm.md#hopper-template).
step_gemm_sm90_ncu_vs() {
    local b
    b=$(find build-gpu -name bench_sm90 -type f | head -1)
    ncu -c 3 --section SpeedOfLight --section WarpStateStats \
        --metrics sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg.per_second,lts__t_bytes.sum,dram__bytes.sum,smsp__average_warp_latency_issue_stalled_barrier,smsp__average_warp_latency_issue_stalled_long_scoreboard,smsp__average_warp_latency_issue_stalled_wait \
        "$b" --configs "${SM90_NCU_CONFIGS:-256,3,2,8,1,0,1}" "${SM90_NCU_SHAPE:-4096x4096x4096}" 2>&1 |
        grep -vE '^\{|^==PROF==|^ +(INF|OPT|WRN)|^          ' | tee "$OUT/gemm_sm90_ncu_vs.txt"
}
# Where the warps of cuBLAS's kernel and of each SM90_NCU_CONFIGS config wait, instruction by
# instruction (docs/perf/gemm.md#lean-consumer): ncu's full set (SourceCounters' stall sampling
# included) on one launch of each at SM90_NCU_SHAPE, clocks as found; per kernel the raw page
# and the SASS source page (a sample count and stall reasons a SASS line) as CSV, and
# bench/gemm/sass_hot.py's summary of the hottest lines.
step_gemm_sm90_ncu_source() {
    local b i c shape
    b=$(find build-gpu -name bench_sm90 -type f | head -1)
    shape=${SM90_NCU_SHAPE:-64x4096x4096}
    IFS=';' read -ra cs <<<"${SM90_NCU_CONFIGS:-32,16,1,1,1,0,0,1,0}"
    ncu -k regex:nvjet -c 1 --set full --clock-control none -f -o "$OUT/src_cublas" \
        "$b" --configs "${cs[0]}" "$shape" >/dev/null 2>&1
    i=0
    for c in "${cs[@]}"; do
        ncu -k ktune_sm90_gemm -c 1 --set full --clock-control none -f -o "$OUT/src_t$i" \
            "$b" --configs "$c" "$shape" >/dev/null 2>&1
        i=$((i + 1))
    done
    for r in "$OUT"/src_*.ncu-rep; do
        ncu -i "$r" --page source --csv --print-source sass >"${r%.ncu-rep}.sass.csv" 2>&1
        ncu -i "$r" --page raw --csv >"${r%.ncu-rep}.raw.csv" 2>&1
        echo "== $(basename "$r")"
        python3 bench/gemm/sass_hot.py "${r%.ncu-rep}.sass.csv" "${r%.ncu-rep}.raw.csv"
    done 2>&1 | tee "$OUT/gemm_sm90_ncu_source.txt"
}
# ktune's mma.sync form beside cuBLAS and the template on this GPU (docs/perf/gemm.md#mma-fallback):
# `ktune tune gemm --with-mma --budget 64` per MMA_SHAPES entry ("MxNxK:dtype"), the report's lines
# for the best of each provider.
step_gemm_mma() {
    local kt e
    kt=$(_gemm_bin)
    for e in ${MMA_SHAPES:-4096x4096x4096:bf16 2048x11008x4096:bf16 16x4096x4096:bf16 1000x777x520:fp16 8x11008x4096:bf16}; do
        echo "== $e"
        "$kt" tune gemm --shape "${e%%:*}" --dtype "${e##*:}" --budget 64 --with-mma \
            --cache "$OUT/gemm_mma_cache.json" 2>&1 |
            grep -E "mma|ktune template|cuBLAS default|^  ktune  |measured"
    done | tee "$OUT/gemm_mma.txt"
}
