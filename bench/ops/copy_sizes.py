#!/usr/bin/env python3
"""The copy each benchmark shape is compared with, at its own size: a device-to-device copy that
moves as many bytes as the op's byte model (half read, half written; a reduction's bytes are
all reads, compared with a copy of the same total), timed like ktune
times candidates (a read sweep of a 2x-L2 buffer before each launch, outside CUDA events;
median of 50).
Small shapes pay the same launch and ramp costs as the op; a 512 MiB copy
(the tuner's copy_gbs) does not. One JSON line per byte count: {"bytes", "copy_ms", "copy_gbs",
"p10_ms", "p90_ms"}; the first line is the 512 MiB copy."""
import json
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tune"))
from torch_ops import SHAPES, l2_flusher, samples  # noqa: E402  (one timing protocol for both scripts)


def timed(fn, flush, reps=50):
    times = samples(fn, flush, reps)
    return statistics.median(times), times[len(times) // 10], times[9 * len(times) // 10]


def main():
    flush = l2_flusher()
    sizes = [512 << 21]  # 512 MiB read + 512 MiB written
    for esize in (4, 2):
        for r, c in SHAPES:
            sizes += [2 * r * c * esize, r * c * esize]  # read + write ops, reductions
    for total in dict.fromkeys(sizes):
        a = torch.empty(total // 2, dtype=torch.uint8, device="cuda")
        b = torch.empty_like(a)
        ms, p10, p90 = timed(lambda: b.copy_(a), flush)
        print(json.dumps({"bytes": total, "copy_ms": ms, "copy_gbs": total / (ms * 1e6),
                          "p10_ms": p10, "p90_ms": p90}), flush=True)
        del a, b


if __name__ == "__main__":
    sys.exit(main())
