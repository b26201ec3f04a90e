# GPU steps of softmax's exp once; sourced by bench/gpu/run.sh:
#   bash bench/gpu/run.sh build softmax_once softmax_sass softmax_ncu pack
# exp_once: e = exp(x - m) taken once in the reduction pass and kept over the row (bf16 as
# fp16), the store pass one FMUL per element instead of a second ex2 (MUFU). Write-up:
# docs/perf/kernels.md#softmax-exp-once. Each step writes its table under $OUT/softmax_*.

# bench_configs: the op's default and the forms around it (same protocol as the tuner: reference
# check, read-sweep L2 flush, >= 16 event-timed samples), on the shapes that matter. Table:
# $OUT/softmax_once.txt. When exp_once was an axis, each config was timed beside its
# exp_once=false twin (the pairs: docs/perf/kernels.md#softmax-exp-once);
# since then staged rows always take exp once and the key is hand-set only, which bench_configs
# (it times configs of the space) cannot pass: this step now times the committed forms.
step_softmax_once() {
    local b=build-gpu/bench/ops/bench_configs
    [ -x "$b" ] || { echo "bench_configs not built"; return 1; }
    local log=$OUT/softmax_once.jsonl
    : >"$log"
    [ -s "$OUT/softmax_copy.jsonl" ] ||
        timeout 60 python3 bench/ops/copy_sizes.py >"$OUT/softmax_copy.jsonl" 2>>"$OUT/softmax_stderr.log"
    # "dtype shape substring...": a config is timed when its text contains a substring.
    local t8="rows_per_block=1,vec=8,cache_row=true,unroll=1"
    local t4="rows_per_block=1,vec=4,cache_row=true,unroll=1"
    local cases=(
        "bf16 1024x131072 cluster=1,stage=smem_tma threads_per_row=512,$t8,cluster=2,stage=smem_tma threads_per_row=1024,$t8,cluster=2,stage=smem_tma threads_per_row=512,$t8,cluster=4,stage=smem_tma threads_per_row=256,rows_per_block=1,vec=2,cache_row=true,unroll=1,cluster=8,stage=regs"
        "bf16 4096x32768 cluster=1,stage=smem_tma"
        "bf16 8192x8192 threads_per_row=256,$t8,cluster=1,stage="
        "bf16 16384x4096 threads_per_row=128,$t8,cluster=1,stage= threads_per_row=256,$t8,cluster=1,stage="
        "fp32 1024x131072 threads_per_row=256,rows_per_block=1,vec=2,cache_row=true,unroll=1,cluster=8,stage=regs cluster=2,stage=smem_tma"
        "fp32 8192x8192 threads_per_row=256,$t4,cluster=1,stage="
    )
    local c dt s subs
    for c in "${cases[@]}"; do
        read -r dt s subs <<<"$c"
        # shellcheck disable=SC2086 # the substrings are separate arguments
        timeout 70 "$b" softmax "$s" "$dt" $subs >>"$log" 2>>"$OUT/softmax_stderr.log" ||
            echo "softmax $dt $s: bench_configs failed or timed out" | tee -a "$OUT/softmax_stderr.log"
        softmax_pairs "$log" "$OUT/softmax_copy.jsonl" >"$OUT/softmax_once.txt"
    done
    cat "$OUT/softmax_once.txt" | head -60
}

# Pairs (exp_once=true vs its exp_once=false twin), best of each per problem, then all configs.
softmax_pairs() {
    python3 - "$@" <<'EOF'
import json, sys
from collections import defaultdict
runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
copies = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
copy = copies[0]["copy_gbs"] if copies else None
print(f"512 MiB copy: {copy:.0f} GB/s" if copy else "no copy timing")
pct = lambda j: 100 * j["gbs"] / copy if copy else float("nan")
g = defaultdict(list)
for j in runs:
    g[(j["dtype"], j["shape"])].append(j)
for (dt, s), js in g.items():
    ok = {j["config"]: j for j in js if j.get("status") == "ok"}
    bad = [j for j in js if j.get("status") != "ok"]
    d = next((j for j in js if j["default"]), None)
    print(f"\nsoftmax {dt} {s}: {len(js)} configs, {len(bad)} not ok"
          + (f" (first: {bad[0]['status']} {bad[0]['config']} {bad[0].get('message', '')[:100]})" if bad else ""))
    if d and d.get("status") == "ok":
        print(f"  default {d['median_ms']:.4f} ms [{d['ci_ms'][0]:.4f}, {d['ci_ms'][1]:.4f}] {pct(d):.1f} % {d['config']}")
    for fam in ("exp_once=false", "exp_once=true", "stage=regs", "stage=smem_tma"):
        b = sorted((j for c, j in ok.items() if fam in c), key=lambda j: j["median_ms"])
        if b:
            b = b[0]
            print(f"  best {fam:<14} {b['median_ms']:.4f} ms [{b['ci_ms'][0]:.4f}, {b['ci_ms'][1]:.4f}] {pct(b):.1f} % {b['config']}")
    print("  pairs (once / twice ms, once % / twice %, regs once / twice):")
    for c, j in sorted(ok.items(), key=lambda kv: kv[1]["median_ms"]):
        if "exp_once=true" not in c:
            continue
        t = ok.get(c.replace("exp_once=true", "exp_once=false"))
        if not t:
            continue
        print(f"    {j['median_ms']:.4f} / {t['median_ms']:.4f} ms  {pct(j):5.1f} / {pct(t):5.1f} %  "
              f"x{t['median_ms'] / j['median_ms']:.3f}  r {j.get('registers', '?')}/{t.get('registers', '?')}  "
              f"{c.replace(',exp_once=true', '')}")
EOF
}

# SASS of the 1024x131072 bf16 default (tpr 512, 192 KiB staged + register tail) both ways:
# instruction mix per pipe-relevant opcode (MUFU, F2FP, HADD2.F32, ...) and ptxas resources.
# The sources are assembled like row_op::source from the ops' raw strings. $OUT/softmax_sass.txt
step_softmax_sass() {
    local d=$OUT/softmax_sass
    mkdir -p "$d"
    python3 - "$d" <<'EOF'
import re, sys
sc = open("src/ops/source_common.cpp").read()
sm = open("src/ops/softmax.cpp").read()
raws = re.findall(r'R"\((.*?)\)"', sc, re.S)
row_common = [r for r in raws if "constexpr int WARPS" in r][0]
tma = [r for r in raws if "constexpr int SNV" in r][0]
body = re.findall(r'softmax_body = R"\((.*?)\)";', sm, re.S)[0]
pre = {"fp32": raws[0] + raws[1] + raws[3] + raws[4], "bf16": raws[0] + raws[2] + raws[3] + raws[5]}
def src(dt, cols, tpr, vec, cl, stage, once, rr):
    s = pre[dt] + (f"#define THREADS_PER_ROW {tpr}\n#define ROWS_PER_BLOCK 1\n#define VEC {vec}\n"
                   f"#define CACHE_ROW 1\n#define UNROLL 1\n#define CLUSTER {cl}\n#define STAGE_{stage} 1\n"
                   f"#define EXP_ONCE {once}\n#define TPR THREADS_PER_ROW\n#define RPB ROWS_PER_BLOCK\n"
                   f"constexpr int C = {cols};\n#define KTUNE_BLOCK {tpr}\n")
    if rr:
        s += f"#define REG_ROUNDS {rr}\n"
    return s + row_common + (tma if stage == "smem_tma" else "") + body
for once in (0, 1):
    open(f"{sys.argv[1]}/bf16_131072_tpr512_once{once}.cu", "w").write(src("bf16", 131072, 512, 8, 1, "smem_tma", once, 8))
    open(f"{sys.argv[1]}/fp32_131072_tpr512_cl2_once{once}.cu", "w").write(src("fp32", 131072, 512, 4, 2, "smem_tma", once, 8))
    open(f"{sys.argv[1]}/bf16_8192_tpr256_regs_once{once}.cu", "w").write(src("bf16", 8192, 256, 8, 1, "regs", once, 0))
EOF
    local f
    for f in "$d"/*.cu; do
        timeout 60 nvcc -cubin -arch=sm_90a -O3 -Xptxas -v -o "${f%.cu}.cubin" "$f" >"${f%.cu}.log" 2>&1 &
    done
    wait
    : >"$OUT/softmax_sass.txt"
    for f in "$d"/*.cu; do
        {
            echo "== $(basename "$f")"
            grep -E "error|registers|spill" "${f%.cu}.log"
            cuobjdump -sass "${f%.cu}.cubin" >"${f%.cu}.sass" 2>&1
            echo "instructions: $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' "${f%.cu}.sass")"
            grep -oE '^\s+/\*[0-9a-f]{4}\*/\s+(@!?U?P[0-9T] )?[A-Z0-9_]+(\.[A-Z0-9_]+)*' "${f%.cu}.sass" |
                awk '{print $NF}' | sort | uniq -c | sort -rn | head -30
        } >>"$OUT/softmax_sass.txt" 2>&1
    done
    grep -E "^==|MUFU|F2FP|HADD2|registers|instructions" "$OUT/softmax_sass.txt"
}

# ncu on the 1024x131072 bf16 default (once beside its exp_once=false twin, when that was an
# axis value; now the default alone): issue slots, pipes, warp states ($SOFTMAX_NCU_SET: "full",
# else the five sections below, fewer replays). $OUT/softmax_ncu.txt.
step_softmax_ncu() {
    local b=build-gpu/bench/ops/bench_configs
    [ -x "$b" ] || { echo "bench_configs not built"; return 1; }
    local base="threads_per_row=512,rows_per_block=1,vec=8,cache_row=true,unroll=1,cluster=1,stage=smem_tma"
    local sections=(--section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats
        --section SchedulerStats --section InstructionStats)
    [ "${SOFTMAX_NCU_SET:-}" = full ] && sections=(--set full)
    : >"$OUT/softmax_ncu.txt"
    echo "== softmax bf16 1024x131072 $base" >>"$OUT/softmax_ncu.txt"
    # The check launches the reference first, then the candidate: skip 1, profile 1.
    BENCH_CONFIGS_NO_DEFAULT=1 timeout 80 ncu --target-processes all -k regex:ktune_op_kernel \
        --launch-skip 1 --launch-count 1 "${sections[@]}" "$b" softmax 1024x131072 bf16 "$base" \
        >>"$OUT/softmax_ncu.txt" 2>&1 || echo "ncu failed or timed out" >>"$OUT/softmax_ncu.txt"
    grep -E "^==|Duration|DRAM Throughput|Compute \(SM\) Throughput|Issue Slots Busy|Executed Ipc A|No Eligible|Stall|One or More Eligible|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|pipe" \
        "$OUT/softmax_ncu.txt" | head -80
}

