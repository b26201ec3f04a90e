#!/usr/bin/env python3
"""PyTorch's equivalents of ktune's built-in ops, timed like ktune times candidates: L2 flushed
(a read sweep over a 2x-L2 buffer, leaving only clean lines) before each launch, outside CUDA
events; median of 50.
Prints one JSON line per (op, dtype, shape): {"op", "dtype", "shape", "torch_ms", "copy_gbs"}."""
import json
import statistics
import sys

import torch

SHAPES = [(4096, 4096), (8192, 8192), (16384, 4096), (32768, 1024), (4096, 32768), (1024, 131072)]


def l2_flusher():
    """A callable that evicts L2 the way ktune's worker does: it reads a 2x-L2 buffer (zeroed once),
    so the previous launch's dirty lines are written back during the flush and L2 holds only clean
    lines afterwards. Zeroing the buffer instead left L2 full of dirty lines that the timed
    launch then wrote back inside its events (bench/ops/flush_probe.py measured it)."""
    l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 64 << 20)
    buf = torch.zeros(2 * l2 // 8, dtype=torch.int64, device="cuda")
    acc = torch.empty((), dtype=torch.int64, device="cuda")
    return lambda: torch.sum(buf, dim=0, out=acc)


def samples(fn, flush, reps=50):
    """Sorted event-timed ms of reps launches after 3 warm-ups, the flush outside the events."""
    for _ in range(3):
        fn()
    times = []
    for _ in range(reps):
        flush()
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
    flush = l2_flusher()
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
