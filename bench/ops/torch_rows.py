#!/usr/bin/env python3
"""PyTorch's equivalent of each (op, dtype, shape) given as arguments "op:dtype:RxC", timed by
the protocol of `ktune tune --vs-torch` (src/tune/tuner_torch.cpp: 3 warm-ups, then per launch a
read sweep of a 2x-L2 buffer outside the CUDA events, 50 launches, inputs U(-2, 2)), in ONE
process so that a sweep of many problems pays Python's and CUDA's start-up once.
Prints one JSON line per problem: op, dtype, shape, torch_ms (median), torch_min_ms, torch_max_ms;
and first one line with the 512 MiB device copy timed the same way (copy_gbs)."""
import json
import statistics
import sys

import torch

l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 64 << 20)
flush_buf = torch.zeros(2 * l2 // 8, dtype=torch.int64, device="cuda")
acc = torch.empty((), dtype=torch.int64, device="cuda")


def timed(fn, reset=None, reps=50):
    for _ in range(3):
        fn()
    times = []
    for _ in range(reps):
        if reset:
            reset()
        torch.sum(flush_buf, dim=0, out=acc)
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    return times


src = torch.empty(512 << 20, dtype=torch.uint8, device="cuda")
dst = torch.empty_like(src)
t = timed(lambda: dst.copy_(src))
print(json.dumps({"copy_gbs": 2 * src.numel() / (statistics.median(t) * 1e6)}), flush=True)
del src, dst

for arg in sys.argv[1:]:
    op, dt, shape = arg.split(":")
    rows, cols = (int(v) for v in shape.split("x"))
    dtype = {"fp32": torch.float32, "bf16": torch.bfloat16}[dt]

    def u(*s):
        return (torch.rand(*s, device="cuda", dtype=torch.float32) * 4 - 2).to(dtype)

    x, g, b = u(rows, cols), u(cols), u(cols)
    x0 = x.clone() if op.endswith("_") else None
    fn = {
        "softmax": lambda: torch.softmax(x, dim=-1),
        "layernorm": lambda: torch.nn.functional.layer_norm(x, (cols,), g, b),
        "rowsum": lambda: x.sum(dim=-1),
        "transpose": lambda: x.t().contiguous(),
        "scale_bias_": lambda: torch.addcmul(b, x, g, out=x),
    }[op]
    reset = (lambda: x.copy_(x0)) if x0 is not None else None
    try:
        ts = timed(fn, reset)
        print(json.dumps({"op": op, "dtype": dt, "shape": shape, "torch_ms": statistics.median(ts),
                          "torch_min_ms": min(ts), "torch_max_ms": max(ts)}), flush=True)
    except RuntimeError as e:
        print(json.dumps({"op": op, "dtype": dt, "shape": shape, "error": str(e)[:200]}), flush=True)
    del x, g, b, x0
    torch.cuda.empty_cache()
