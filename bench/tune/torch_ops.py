#!/usr/bin/env python3
"""PyTorch's equivalents of ktune's built-in ops, timed like ktune times candidates: L2 flushed
(a 2x-L2 buffer zeroed) before each launch, outside CUDA events; median of 50.
Prints one JSON line per (op, dtype, shape): {"op", "dtype", "shape", "torch_ms", "copy_gbs"}."""
import json
import statistics
import sys

import torch

SHAPES = [(4096, 4096), (8192, 8192), (16384, 4096), (32768, 1024), (4096, 32768), (1024, 131072)]


def samples(fn, flush, reps=50):
    """Sorted event-timed ms of reps launches after 3 warm-ups, the flush outside the events."""
    for _ in range(3):
        fn()
    times = []
    for _ in range(reps):
        flush.zero_()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    return sorted(times)


def timed(fn, flush, reps=50):
    return statistics.median(samples(fn, flush, reps))


def main():
    dev = torch.cuda.get_device_properties(0)
    l2 = getattr(dev, "L2_cache_size", 64 << 20)
    flush = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
    a = torch.empty(512 << 20, dtype=torch.uint8, device="cuda")
    b = torch.empty_like(a)
    copy_ms = timed(lambda: b.copy_(a), flush, 20)
    copy_gbs = 2 * a.numel() / (copy_ms * 1e6)
    ops = sys.argv[1].split(",") if len(sys.argv) > 1 else ["softmax", "layernorm", "rowsum", "transpose"]
    for dt_name, dt in (("fp32", torch.float32), ("bf16", torch.bfloat16)):
        for rows, cols in SHAPES:
            x = torch.randn(rows, cols, device="cuda", dtype=dt)
            g = torch.randn(cols, device="cuda", dtype=dt)
            bb = torch.randn(cols, device="cuda", dtype=dt)
            fns = {
                "softmax": lambda: torch.softmax(x, dim=-1),
                "layernorm": lambda: torch.nn.functional.layer_norm(x, (cols,), g, bb),
                "rowsum": lambda: x.sum(dim=-1),
                "transpose": lambda: x.t().contiguous(),
            }
            for op in ops:
                ms = timed(fns[op], flush)
                print(json.dumps({"op": op, "dtype": dt_name, "shape": f"{rows}x{cols}",
                                  "torch_ms": ms, "copy_gbs": copy_gbs}), flush=True)
            del x


if __name__ == "__main__":
    main()
