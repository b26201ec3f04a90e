#!/usr/bin/env python3
"""Table of tuned ktune kernels vs PyTorch from the sweep's JSON lines (bench/tune/gpu_step.sh)."""
import json
import sys

tuned = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
torch = {(j["op"], j["dtype"], j["shape"]): j for j in map(json.loads, open(sys.argv[2])) if j}
print("| op | dtype | shape | ktune ms | ktune % copy | default % copy | PyTorch ms | PyTorch % copy | speed-up vs PyTorch |")
print("|---|---|---|---|---|---|---|---|---|")
worst = None
for t in tuned:
    s = t["summary"]
    key = (t["op"], t["dtype"], t["shape"])
    tj = torch.get(key)
    if "median_ms" not in s:
        print(f"| {t['op']} | {t['dtype']} | {t['shape']} | no winner | | | | | |")
        continue
    pct_torch = tspeed = ""
    if tj:
        copy = s["copy_gbs"]
        tbytes = s["gbs"] * s["median_ms"]  # GB moved by the byte model
        pct_torch = f"{100 * tbytes / tj['torch_ms'] / copy:.1f}"
        sp = tj["torch_ms"] / s["median_ms"]
        tspeed = f"{sp:.2f}x"
        worst = sp if worst is None else min(worst, sp)
    print(f"| {t['op']} | {t['dtype']} | {t['shape']} | {s['median_ms']:.4f} | {s['pct_copy']:.1f} | "
          f"{s.get('default_pct_copy', 0):.1f} | {tj['torch_ms'] if tj else '':.4} | {pct_torch} | {tspeed} |")
print(f"\nslowest ratio PyTorch/ktune: {worst}")
