// torch.matmul on the tuned GEMM problem, timed by an embedded Python script (an installed
// ktune needs no data files), after the tune when ktune no longer uses the GPU.
#include "ktune/gemm/vs_torch.hpp"

#include "core/torch_script.hpp"

#include <string>

namespace ktune::gemm {
namespace {

// Row-major PyTorch view of the column-major problem: D^T (n x m) = op(B)^T op(A)^T. For tn
// (x @ W^T, nn.Linear's layout) x is (n, k) and W is (m, k); the transposes of other layouts are
// views, as PyTorch passes them to cuBLAS. Samples until the 95 % CI of the median is within
// +-1 % (order statistics) or 200 samples.
const char* const script = R"PY(
import json, math, sys
def out(**kw):
    print("KTUNE_TORCH " + json.dumps(kw), flush=True)
try:
    import torch
except Exception as e:
    out(ok=False, message="PyTorch is not importable by this python (%s): install torch or set KTUNE_PYTHON" % e)
    sys.exit(0)
if not torch.cuda.is_available():
    out(ok=False, message="PyTorch sees no CUDA device"); sys.exit(0)
m, n, k, dt, lay, sets = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], int(sys.argv[6])
ta, tb = lay[0] == "t", lay[1] == "t"
def mat(rows, cols):
    v = (torch.randint(-8, 9, (rows, cols), device="cuda").float() / 8)
    return v.to(torch.float8_e4m3fn if dt == "fp8" else {"bf16": torch.bfloat16, "fp16": torch.float16}[dt])
# Row-major tensors over the same memory as the column-major A and B: A^T (m, k) when
# transposed, else (k, m); B^T (k, n) when transposed, else (n, k). D^T = op(B)^T @ op(A)^T.
def A(): return mat(m, k) if ta else mat(k, m)
def B(): return mat(k, n) if tb else mat(n, k)
As = [A() for _ in range(sets)]
Bs = [B() for _ in range(sets)]
one = torch.ones((), device="cuda", dtype=torch.float32)
def run(i):
    opAT = As[i].t() if ta else As[i]   # (k, m)
    opBT = Bs[i].t() if tb else Bs[i]   # (n, k)
    if dt == "fp8":
        return torch._scaled_mm(opBT, opAT, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    return torch.matmul(opBT, opAT)
try:
    for i in range(sets): run(i)
    torch.cuda.synchronize()
except Exception as e:
    out(ok=False, message="torch failed on this problem: %s" % e); sys.exit(0)
l2 = torch.cuda.get_device_properties(0).L2_cache_size
scratch = torch.empty(2 * l2 // 4 + 1, device="cuda", dtype=torch.float32)
s = torch.cuda.Stream()
samples = []
with torch.cuda.stream(s):
    if sets > 1:
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, stream=s):
            for i in range(sets): run(i)
    for _ in range(3):
        g.replay() if sets > 1 else run(0)
    while len(samples) < 200:
        ev = []
        for _ in range(8):
            if sets == 1: scratch.sum()
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            e0.record(s)
            g.replay() if sets > 1 else run(0)
            e1.record(s)
            ev.append((e0, e1))
        s.synchronize()
        samples += [1000.0 * a.elapsed_time(b) / sets for a, b in ev]
        x = sorted(samples); nn = len(x)
        j = max(0, int(nn / 2 - 0.98 * math.sqrt(nn)) - 1); h = min(nn - 1, nn - 1 - j)
        med = (x[(nn - 1) // 2] + x[nn // 2]) / 2
        if nn >= 16 and (x[h] - x[j]) / 2 <= 0.01 * med: break
out(ok=True, median_us=med, ci_lo_us=x[j], ci_hi_us=x[h], torch=torch.__version__)
)PY";

} // namespace

torch_timing time_torch(const problem& p, int rotation_sets) {
    torch_timing t;
    const auto a = ktune::detail::run_torch_script(
        script, {std::to_string(p.m), std::to_string(p.n), std::to_string(p.k),
                 std::string(to_string(p.type)), std::string(to_string(p.op)),
                 std::to_string(rotation_sets)});
    if (!a.answered) {
        t.message = a.message;
        return t;
    }
    t.ok = a.doc.value("ok", false);
    t.message = a.doc.value("message", "");
    t.median_us = a.doc.value("median_us", 0.0);
    t.ci_lo_us = a.doc.value("ci_lo_us", 0.0);
    t.ci_hi_us = a.doc.value("ci_hi_us", 0.0);
    t.torch_version = a.doc.value("torch", "");
    return t;
}

} // namespace ktune::gemm
