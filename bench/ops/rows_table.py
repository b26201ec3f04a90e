#!/usr/bin/env python3
"""Table of bench/ops/gpu_step_rows.sh: ktune's tuned op against PyTorch per (op, shape, dtype).
Usage: rows_table.py rows.jsonl rows_torch.jsonl
Columns: tuned median ms [95 % CI], PyTorch median ms [min..max of 50], ratio (PyTorch / ktune:
above 1 is faster than PyTorch), % of the tuner's copy bandwidth where >= 256 MiB move, the
candidates that passed the check / evaluated, the winner's vec. Then the misses of the targets."""
import json
import sys

tunes = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
torch_lines = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
torch = {(t["op"], t["dtype"], t["shape"]): t for t in torch_lines if "op" in t}
copy_torch = next((t["copy_gbs"] for t in torch_lines if "copy_gbs" in t), None)
if copy_torch:
    print(f"PyTorch 512 MiB copy (same protocol): {copy_torch:.0f} GB/s")
print(f"{'op':<12} {'shape':<12} {'dtype':<5} {'ms [95% CI]':<26} {'torch ms [min..max]':<28} "
      f"{'ratio':>6} {'%copy':>6} {'ok/eval':>8} {'vec':>4}")
slow, low = [], []
for t in tunes:
    key = (t["op"], t["dtype"], t["shape"])
    if "winner" not in t:
        print(f"{t['op']:<12} {t['shape']:<12} {t['dtype']:<5} no winner: {t.get('error', '')[:80]}")
        slow.append(key)
        continue
    w = t["winner"]
    ms = w["median_us"] / 1000
    ci = f"{ms:.4f} [{w['ci_low_us'] / 1000:.4f}, {w['ci_high_us'] / 1000:.4f}]"
    tr = torch.get(key)
    tms = f"{tr['torch_ms']:.4f} [{tr['torch_min_ms']:.4f}..{tr['torch_max_ms']:.4f}]" if tr and "torch_ms" in tr else "-"
    ratio = tr["torch_ms"] / ms if tr and "torch_ms" in tr else None
    big = t.get("bytes", 0) >= 256 * 2**20
    pct = 100 * t["bytes"] / (ms * 1e6) / t["copy_gbs"] if t.get("copy_gbs") else None
    cands = t.get("candidates", [])
    ok = sum(1 for c in cands if c["status"] == "ok")
    vec = w["config"].get("vec", "-")
    print(f"{t['op']:<12} {t['shape']:<12} {t['dtype']:<5} {ci:<26} {tms:<28} "
          f"{(f'{ratio:.2f}x' if ratio else '-'):>6} {(f'{pct:.1f}' if big and pct else '-'):>6} "
          f"{f'{ok}/{len(cands)}':>8} {vec:>4}")
    if ratio is not None and ratio < 1:
        slow.append(key)
    if big and pct is not None and pct < 85:
        low.append((key, pct))
print(f"\nslower than PyTorch: {len(slow)}: " + ", ".join(" ".join(k) for k in slow))
print(f">= 256 MiB under 85 % of copy: {len(low)}: " +
      ", ".join(f"{' '.join(k)} ({p:.1f} %)" for k, p in low))
