#!/usr/bin/env python3
"""The kernels table (docs/perf/tune.md#split-rows) from the sweep's JSON lines:
  table.py SWEEP.jsonl TORCH.jsonl COPY_SIZES.jsonl
Per (op, dtype, shape): tuned and default % of the 512 MiB copy bandwidth, tuned % of a copy of
the same size, PyTorch's time and ktune's speed-up over it, the winner."""
import json
import sys


def rows(path):
    return [json.loads(l) for l in open(path) if l.strip()]


tuned = rows(sys.argv[1])
torch = {(j["op"], j["dtype"], j["shape"]): j for j in rows(sys.argv[2])}
copies = rows(sys.argv[3])
same_size = {j["bytes"]: j["copy_gbs"] for j in copies}
print(f"512 MiB copy (torch, same protocol): {copies[0]['copy_gbs']:.0f} GB/s\n")
print("| op | dtype | shape | ktune ms [CI] | % copy | % same-size copy | default % copy "
      "| PyTorch ms | speed-up vs PyTorch | winner |")
print("|---|---|---|---|---|---|---|---|---|---|")
worst, misses = None, []
for t in tuned:
    s = t["summary"]
    key = (t["op"], t["dtype"], t["shape"])
    if "median_ms" not in s:
        print(f"| {' | '.join(key)} | no winner | | | | | | |")
        continue
    gb = s["gbs"] * s["median_ms"] / 1e3  # GB by the byte model
    # The copy nearest in size to the op's byte model (layernorm's gamma/beta and rowsum's
    # output are < 0.1 % of it).
    nearest = min(same_size, key=lambda b: abs(b - gb * 1e9)) if same_size else None
    same = same_size[nearest] if nearest and abs(nearest - gb * 1e9) < 0.01 * gb * 1e9 else None
    pct_same = f"{100 * s['gbs'] / same:.1f}" if same else ""
    tj = torch.get(key)
    sp = tj["torch_ms"] / s["median_ms"] if tj else None
    if sp is not None:
        worst = sp if worst is None else min(worst, sp)
    if s["pct_copy"] < 85:
        misses.append(f"{key[0]} {key[1]} {key[2]} {s['pct_copy']:.1f}")
    ci = s.get("ci_ms", [0, 0])
    print(f"| {key[0]} | {key[1]} | {key[2]} | {s['median_ms']:.4f} [{ci[0]:.4f}, {ci[1]:.4f}] | "
          f"{s['pct_copy']:.1f} | {pct_same} | {s.get('default_pct_copy', 0):.1f} | "
          f"{tj['torch_ms']:.4f} | {sp:.2f}x | {s.get('winner', '')} |" if tj else
          f"| {key[0]} | {key[1]} | {key[2]} | {s['median_ms']:.4f} | {s['pct_copy']:.1f} | "
          f"{pct_same} | {s.get('default_pct_copy', 0):.1f} | | | {s.get('winner', '')} |")
print(f"\nslowest PyTorch/ktune ratio: {worst:.2f}x" if worst else "")
print("below 85 % of the 512 MiB copy: " + ("; ".join(misses) if misses else "none"))
