// PyTorch's equivalent of a tuned op, timed with ktune's protocol by a bundled Python script
// (python3 with torch on the same GPU): the "speed-up over PyTorch" of `ktune tune --vs-torch`.
// The script is embedded so an installed ktune needs no data files; it runs after the tune,
// when the worker no longer uses the GPU.
#include "core/torch_script.hpp"
#include "ktune/tune/tuner.hpp"

#include <fmt/format.h>

namespace ktune::tune {
namespace {

// Same protocol as the worker: 3 warm-ups, then per launch a read sweep of a 2x-L2 buffer (L2
// flushed, only clean lines left) outside the CUDA events, median of 50. Inputs U(-2, 2) like the
// worker's fill.
const char* const script = R"PY(
import json, statistics, sys
def out(**kw):
    print("KTUNE_TORCH " + json.dumps(kw), flush=True)
try:
    import torch
except Exception as e:
    out(ok=False, message="PyTorch is not importable by this python (%s): install torch or set KTUNE_PYTHON" % e)
    sys.exit(0)
if not torch.cuda.is_available():
    out(ok=False, message="PyTorch sees no CUDA device")
    sys.exit(0)
op, dt, rows, cols = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
dtype = {"fp32": torch.float32, "bf16": torch.bfloat16}[dt]
def u(*shape):
    return (torch.rand(*shape, device="cuda", dtype=torch.float32) * 4 - 2).to(dtype)
x, g, b = u(rows, cols), u(cols), u(cols)
x0 = x.clone()
fns = {
    "softmax": ("torch.softmax(x, dim=-1)", lambda: torch.softmax(x, dim=-1)),
    "layernorm": ("torch.nn.functional.layer_norm(x, (cols,), g, b)",
                  lambda: torch.nn.functional.layer_norm(x, (cols,), g, b)),
    "rowsum": ("x.sum(dim=-1)", lambda: x.sum(dim=-1)),
    "transpose": ("x.t().contiguous()", lambda: x.t().contiguous()),
    "scale_bias_": ("torch.addcmul(b, x, g, out=x)", lambda: torch.addcmul(b, x, g, out=x)),
}
if op not in fns:
    out(ok=False, message="no PyTorch equivalent is known for op '%s'" % op)
    sys.exit(0)
expr, fn = fns[op]
inplace = op.endswith("_")
try:
    fn()
except RuntimeError:
    if op != "scale_bias_":
        raise
    # A torch that refuses out= aliasing an input: the two in-place ops a user would write.
    expr, fn = "x.mul_(g).add_(b)", lambda: x.mul_(g).add_(b)
l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 64 << 20)
flush = torch.zeros(2 * l2 // 8, dtype=torch.int64, device="cuda")
acc = torch.empty((), dtype=torch.int64, device="cuda")
for _ in range(3):
    fn()
times = []
for _ in range(50):
    if inplace:
        x.copy_(x0)  # every launch from the same inputs, outside the events
    torch.sum(flush, dim=0, out=acc)  # reads: evicts, leaves no dirty line to write back
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    fn()
    e.record()
    e.synchronize()
    times.append(s.elapsed_time(e))
out(ok=True, median_ms=statistics.median(times), expression=expr, torch=torch.__version__)
)PY";

} // namespace

torch_timing time_torch_equivalent(const tune_request& rq) {
    torch_timing t;
    const ops::op& o = ops::find_op(rq.op);
    if (o.torch_equivalent().empty()) {
        t.message = fmt::format("op '{}' has no PyTorch equivalent", rq.op);
        return t;
    }
    // Every argument is a registered op name, a dtype name or a number.
    const auto a = ktune::detail::run_torch_script(
        script, {std::string(o.name()), std::string(ops::to_string(rq.prob.type)),
                 std::to_string(rq.prob.shape.rows), std::to_string(rq.prob.shape.cols)});
    if (!a.answered) {
        t.message = a.message;
        return t;
    }
    t.ok = a.doc.value("ok", false);
    t.message = a.doc.value("message", "");
    t.median_ms = a.doc.value("median_ms", 0.0);
    t.expression = a.doc.value("expression", std::string(o.torch_equivalent()));
    t.torch_version = a.doc.value("torch", "");
    return t;
}

} // namespace ktune::tune
