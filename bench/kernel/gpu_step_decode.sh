# GPU step of the decode GEMM example (sourced by bench/gpu/run.sh; docs/perf/kernel.md#decode-gemm):
#   decode_gemm  examples/kernels/decode_gemm tuned over its whole space (`ktune tune --kernel`,
#                budget 64 > its 55 configs) at M in $DECODE_M (default "1 8") x Llama-7B
#                projections (N x K: 4096x4096, 11008x4096, 4096x11008), beside `ktune tune gemm`
#                (cuBLASLt: the default pick and ktune's) on the same problems. Table: time, % of the
#                tuner's copy roof (W read once: the model's bytes), ratio cuBLAS default / kernel.
step_decode_gemm() {
    local k=$PWD/build-gpu/tools/ktune-cli/ktune d m nk n kk
    d=$(mktemp -d)
    local spec=examples/kernels/decode_gemm/decode_gemm.json
    : >"$OUT/decode_gemm.jsonl"
    for m in ${DECODE_M:-1 8}; do
        for nk in 4096x4096 11008x4096 4096x11008; do
            n=${nk%x*} kk=${nk#*x}
            KTUNE_CUBIN_CACHE=$d/cubin "$k" tune --kernel "$spec" --problem "M=$m,N=$n,K=$kk" \
                --budget 64 --cache "$d/k.json" --json >"$d/k.out" 2>>"$OUT/decode_gemm.err" ||
                echo "decode_gemm: kernel tune M=$m $nk failed" | tee -a "$OUT/decode_gemm.err"
            "$k" tune gemm --shape "${m}x${n}x${kk}" --dtype bf16 --budget 16 --heuristic-count 8 \
                --cache "$d/g.json" --json >"$d/g.out" 2>>"$OUT/decode_gemm.err" ||
                echo "decode_gemm: gemm tune M=$m $nk failed" | tee -a "$OUT/decode_gemm.err"
            python3 - "$m" "$n" "$kk" "$d/k.out" "$d/g.out" >>"$OUT/decode_gemm.jsonl" <<'PY'
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
    python3 - "$OUT/decode_gemm.jsonl" <<'PY' | tee "$OUT/decode_gemm.txt" | tee -a "$summary"
import json, sys
print("shape (MxNxK)     kernel us [95% CI]          %copy  kernel default us  cuBLAS default us  ktune gemm us  cuBLAS/kernel  config")
for line in open(sys.argv[1]):
    r = json.loads(line)
    s = "%dx%dx%d" % (r["m"], r["n"], r["k"])
    if "kernel_us" not in r or "cublas_default_us" not in r:
        print(s, r.get("kernel_error", ""), r.get("gemm_error", ""))
        continue
    pct = r["bytes"] / (r["kernel_us"] * 1e-6) / 1e9 / r["copy_gbs"] * 100
    print("%-17s %7.2f [%6.2f, %6.2f]   %5.1f  %17.2f  %17.2f  %13.2f  %13.3f  %s" % (
        s, r["kernel_us"], r["kernel_ci"][0], r["kernel_ci"][1], pct, r["default_us"],
        r["cublas_default_us"], r["ktune_gemm_us"], r["cublas_default_us"] / r["kernel_us"],
        json.dumps(r["kernel_cfg"], sort_keys=True)))
PY
    rm -rf "$d"
}
