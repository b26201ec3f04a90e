#!/usr/bin/env python3
"""How much of a short op's event-timed median is the L2 flush's own write-back
(docs/perf/kernels.md#read-flush).
The tuner, bench/tune/torch_ops.py and bench/ops/copy_sizes.py flushed L2 by zeroing a 2x-L2
buffer before each launch (until c45cff1: now a read sweep), outside the events: that leaves L2 full of dirty lines, written back
to DRAM while the timed kernel runs. Times the same launches after (a) that flush, (b) that flush
followed by a read of the buffer (L2 then holds clean lines: evicting them costs nothing), (c) no
flush. One JSON line per (what, flush): {"what", "bytes", "flush", "median_ms", "p10_ms",
"p90_ms", "gbs"}."""
import json
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tune"))
from torch_ops import samples  # noqa: E402  (the same timed loop; the flush is the argument)


def main():
    dev = torch.cuda.get_device_properties(0)
    l2 = getattr(dev, "L2_cache_size", 64 << 20)
    flush = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
    acc = torch.empty(1, dtype=torch.int64, device="cuda")
    policies = {
        "zero": lambda: flush.zero_(),
        "zero+read": lambda: (flush.zero_(), torch.sum(flush.view(torch.int64), dim=0, out=acc)),
        "none": lambda: None,
    }
    x = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    a = torch.empty(512 << 20, dtype=torch.uint8, device="cuda")
    b = torch.empty_like(a)
    a2 = torch.empty(64 << 20, dtype=torch.uint8, device="cuda")
    b2 = torch.empty_like(a2)
    cases = [("rowsum bf16 8192x8192 (x.sum(-1))", 8192 * 8192 * 2, lambda: x.sum(dim=-1)),
             ("copy 512 MiB", 2 * a.numel(), lambda: b.copy_(a)),
             ("copy 64 MiB (128 MiB moved)", 2 * a2.numel(), lambda: b2.copy_(a2))]
    for what, nbytes, fn in cases:
        for name, before in policies.items():
            t = samples(fn, before)
            med = statistics.median(t)
            print(json.dumps({"what": what, "bytes": nbytes, "flush": name, "median_ms": med,
                              "p10_ms": t[len(t) // 10], "p90_ms": t[9 * len(t) // 10],
                              "gbs": nbytes / (med * 1e6)}), flush=True)


if __name__ == "__main__":
    sys.exit(main())
