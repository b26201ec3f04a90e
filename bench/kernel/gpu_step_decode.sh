# GPU steps of the decode GEMM examples (sourced by bench/gpu/run.sh; docs/perf/kernel.md):
#   decode_gemm     examples/kernels/decode_gemm (FFMA, docs/perf/kernel.md#decode-gemm) tuned
#                   over its whole space (`ktune tune --kernel`, budget 64 > its 55 configs) at M
#                   in $DECODE_M (default "1 8");
#   decode_gemm_tc  examples/kernels/decode_gemm_tc (tensor cores, split-K,
#                   docs/perf/kernel.md#tensor-core-decode-gemm) at M in $DECODE_TC_M (default
#                   "1 8 16 32 64"), budget $DECODE_TC_BUDGET (default 80: every valid config at
#                   M <= 8, 41-51 of them; 44-100 % of the 75-181 at M >= 16, X staged in
#                   shared memory or not; 28 s on an H200 at the former 56, ~40 s expected); with
#                   DECODE_TC_FP8=1 also its fp8-weight variant, beside the same bf16 cuBLAS
#                   (DECODE_TC_FP8=only: that variant alone, a device call's worth).
# Both on Llama-7B projections (N x K: 4096x4096, 11008x4096, 4096x11008), beside `ktune tune
# gemm` (cuBLASLt: the default pick and ktune's) on the same problems. Table: time, % of the
# tuner's copy roof (the model's bytes: W, X and D once), ratio cuBLAS default / kernel.

# decode_tune NAME SPEC BUDGET M...: tune SPEC and cuBLAS (bf16) on each problem, one JSON line
# each into $OUT/NAME.jsonl, then the table into $OUT/NAME.txt and the summary.
decode_tune() {
    local name=$1 spec=$2 budget=$3
    shift 3
    local k=$PWD/build-gpu/tools/ktune-cli/ktune d m nk n kk
    d=$(mktemp -d)
    : >"$OUT/$name.jsonl"
    for m in "$@"; do
        for nk in 4096x4096 11008x4096 4096x11008; do
            n=${nk%x*} kk=${nk#*x}
            KTUNE_CUBIN_CACHE=$d/cubin "$k" tune --kernel "$spec" --problem "M=$m,N=$n,K=$kk" \
                --budget "$budget" --cache "$d/k.json" --json >"$d/k.out" 2>>"$OUT/$name.err" ||
                echo "$name: kernel tune M=$m $nk failed" | tee -a "$OUT/$name.err"
            "$k" tune gemm --shape "${m}x${n}x${kk}" --dtype bf16 --budget 16 --heuristic-count 8 \
                --cache "$d/g.json" --json >"$d/g.out" 2>>"$OUT/$name.err" ||
                echo "$name: gemm tune M=$m $nk failed" | tee -a "$OUT/$name.err"
            # Each row also to stdout: a step cut by its time limit still shows what it measured.
            python3 - "$m" "$n" "$kk" "$d/k.out" "$d/g.out" <<'PY' | tee -a "$OUT/$name.jsonl"
import json, sys
m, n, k = (int(a) for a in sys.argv[1:4])
row = {"m": m, "n": n, "k": k}
try:
    t = json.load(open(sys.argv[4]))
    w = t["winner"]
    row.update(kernel_us=w["median_us"], kernel_ci=[w["ci_low_us"], w["ci_high_us"]],
               kernel_cfg=w["config"], default_us=t["default"]["median_us"],
               copy_gbs=t["copy_gbs"], bytes=t["bytes"],
               ok=sum(c["status"] == "ok" for c in t["candidates"]), evaluated=len(t["candidates"]))
except Exception as e:  # noqa: BLE001
    row["kernel_error"] = str(e)
try:
    g = json.load(open(sys.argv[5]))
    row.update(cublas_default_us=g["default"]["median_us"], cublas_default_ci=g["default"]["ci_us"],
               ktune_gemm_us=g["winner"]["median_us"], gemm_rotation_sets=g["rotation_sets"])
except Exception as e:  # noqa: BLE001
    row["gemm_error"] = str(e)
print(json.dumps(row))
PY
        done
    done
    python3 - "$OUT/$name.jsonl" "$name" <<'PY' | tee "$OUT/$name.txt" | tee -a "$summary"
import json, sys
print("%s (%% copy: the model's bytes over the tuner's copy roof; cuBLAS %% copy: bf16 bytes)" % sys.argv[2])
print("shape (MxNxK)     kernel us [95% CI]          %copy  ok/evaluated  kernel default us  cuBLAS default us  cuBLAS %copy  ktune gemm us  cuBLAS/kernel  config")
for line in open(sys.argv[1]):
    r = json.loads(line)
    s = "%dx%dx%d" % (r["m"], r["n"], r["k"])
    if "kernel_us" not in r or "cublas_default_us" not in r:
        print(s, r.get("kernel_error", ""), r.get("gemm_error", ""))
        continue
    roof = r["copy_gbs"] * 1e9
    pct = r["bytes"] / (r["kernel_us"] * 1e-6) / roof * 100
    bf16_bytes = 2 * (r["n"] * r["k"] + r["m"] * r["k"] + r["m"] * r["n"])
    cpct = bf16_bytes / (r["cublas_default_us"] * 1e-6) / roof * 100
    print("%-17s %7.2f [%6.2f, %6.2f]   %5.1f  %5d/%-6d  %17.2f  %17.2f  %12.1f  %13.2f  %13.3f  %s" % (
        s, r["kernel_us"], r["kernel_ci"][0], r["kernel_ci"][1], pct, r["ok"], r["evaluated"],
        r["default_us"], r["cublas_default_us"], cpct, r["ktune_gemm_us"],
        r["cublas_default_us"] / r["kernel_us"], json.dumps(r["kernel_cfg"], sort_keys=True)))
PY
    rm -rf "$d"
}

step_decode_gemm() {
    # shellcheck disable=SC2086 # DECODE_M is a list of words
    decode_tune decode_gemm examples/kernels/decode_gemm/decode_gemm.json 64 ${DECODE_M:-1 8}
}

step_decode_gemm_tc() {
    local dir=examples/kernels/decode_gemm_tc budget=${DECODE_TC_BUDGET:-80}
    if [ "${DECODE_TC_FP8:-0}" != only ]; then
        # shellcheck disable=SC2086 # DECODE_TC_M is a list of words
        decode_tune decode_gemm_tc $dir/decode_gemm_tc.json "$budget" ${DECODE_TC_M:-1 8 16 32 64}
    fi
    if [ "${DECODE_TC_FP8:-0}" != 0 ]; then
        # shellcheck disable=SC2086
        decode_tune decode_gemm_tc_fp8 $dir/decode_gemm_tc_fp8.json "$budget" \
            ${DECODE_TC_M:-1 8 16 32 64}
    fi
}
