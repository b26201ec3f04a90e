# GPU steps of the user-kernel claims (sourced by bench/gpu/run.sh; docs/perf/kernel.md):
#   kernel_e2e     the user's workflow on the tiled matmul example at M=N=K=4096: `ktune tune
#                  --kernel` (auto, budget $KERNEL_BUDGET, default 128) from cold caches, then the
#                  example application launching the kernel through the cache (tier exact, result
#                  checked on the host), and the tuned config against the spec's default;
#   kernel_launch  the run-time launcher against a plain cuLaunchKernel of the same cubin.
step_kernel_e2e() {
    local k=$PWD/build-gpu/tools/ktune-cli/ktune d
    d=$(mktemp -d)
    local spec=examples/kernels/matmul/matmul.json problem=M=4096,N=4096,K=4096
    {
        echo "### kernel_e2e: matmul $problem"
        KTUNE_CUBIN_CACHE=$d/cubin "$k" tune --kernel "$spec" --problem "$problem" \
            --budget "${KERNEL_BUDGET:-128}" --cache "$d/tuned.json" --json >"$OUT/kernel_e2e.json"
        echo "tune rc=$?"
        python3 - "$OUT/kernel_e2e.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
c = j["candidates"]
st = {}
for x in c: st[x["status"]] = st.get(x["status"], 0) + 1
w, d = j.get("winner"), j["default"]
print("winner %s %.1f us; default %s %.1f us; speed-up %.2fx; %d candidates %s; wall %.1f s" % (
    json.dumps(w["config"], sort_keys=True), w["median_us"], json.dumps(d["config"], sort_keys=True),
    d["median_us"], d["median_us"] / w["median_us"], len(c), st, j["wall_s"]))
flops = 2 * 4096 ** 3
print("winner %.1f TFLOP/s, default %.1f TFLOP/s" % (flops / w["median_us"] / 1e6, flops / d["median_us"] / 1e6))
PY
        KTUNE_CUBIN_CACHE=$d/cubin KTUNE_CACHE=$d/tuned.json \
            build-gpu/examples/example_kernel_matmul "$spec" 4096 4096 4096
        echo "example rc=$?"
    } 2>&1 | tee "$OUT/kernel_e2e.txt" | tee -a "$summary"
    rm -rf "$d"
}
step_kernel_launch() {
    { echo "### kernel_launch"; build-gpu/bench/kernel/kernel_launch_overhead_gpu 100000 256; } 2>&1 |
        tee "$OUT/kernel_launch.txt" | tee -a "$summary"
}
