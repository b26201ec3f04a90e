#!/usr/bin/env python3
"""Table of cuBLAS's default pick on unaligned GEMM shapes against its own aligned throughput
(docs/perf/gemm.md#unaligned-shapes), from `ktune tune gemm --json` reports.

usage: unaligned_table.py REPORT.json...   (one report per shape; file names end in _MxNxK.json)

Per M, the aligned shape (N, K multiples of 64) is the baseline: `vs aligned` is the shape's
cuBLAS-default TFLOP/s over the baseline's (below 1: cuBLAS drops there); `ktune/default` is
ktune's tuned pick's speed-up over cuBLAS's default on the same shape; `form` is the winner's
(`padded`: ktune's padded-K form, docs/perf/gemm.md#padded-k; `own`: a cuBLASLt algorithm on
the problem as given); `best padded µs` the fastest padded candidate that passed (- if none ran)."""
import json
import re
import sys


def main(paths):
    rows = []
    for p in paths:
        m = re.search(r"_(\d+)x(\d+)x(\d+)\.json$", p)
        if not m:
            continue
        mm, n, k = (int(x) for x in m.groups())
        try:
            r = json.load(open(p))
            d, w = r["default"]["median_us"], r["winner"]["median_us"]
            form = "padded" if r["winner"].get("algo", {}).get("pad_k") else "own"
            pads = [c["median_us"] for c in r.get("evaluated", [])
                    if c.get("algo", {}).get("pad_k") and c.get("status") == "ok"]
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            rows.append((mm, n, k, None, None, str(e), "", None))
            continue
        rows.append((mm, n, k, d, w, "", form, min(pads) if pads else None))
    rows.sort(key=lambda row: row[:3])
    print("| M x N x K | N, K mod 64 | cuBLAS default µs | TFLOP/s | vs aligned | ktune µs "
          "| ktune/default | form | best padded µs |")
    print("|---|---|---|---|---|---|---|---|---|")
    base = {}
    for mm, n, k, d, w, err, form, pad in rows:
        if d and n % 64 == 0 and k % 64 == 0:
            base[mm] = 2.0 * mm * n * k / (d * 1e-6) / 1e12
    drops, recovered = [], []
    for mm, n, k, d, w, err, form, pad in rows:
        if d is None:
            print("| %dx%dx%d | %d, %d | %s | | | | | | |" % (mm, n, k, n % 64, k % 64, err))
            continue
        tf = 2.0 * mm * n * k / (d * 1e-6) / 1e12
        rel = tf / base[mm] if mm in base else float("nan")
        print("| %dx%dx%d | %d, %d | %.2f | %.1f | %.3f | %.2f | %.3f | %s | %s |" % (
            mm, n, k, n % 64, k % 64, d, tf, rel, w, d / w, form,
            "%.2f" % pad if pad is not None else "-"))
        if rel < 0.9:
            drops.append("%dx%dx%d (%.2f)" % (mm, n, k, rel))
            recovered.append("%dx%dx%d %.2fx" % (mm, n, k, d / w))
    print("\ncuBLAS's default under 0.9x of its aligned throughput: %d: %s" % (
        len(drops), ", ".join(drops) or "none"))
    print("ktune's pick there, over cuBLAS's default: %s" % (", ".join(recovered) or "none"))


if __name__ == "__main__":
    main(sys.argv[1:])
