#!/usr/bin/env python3
"""Summarises ktune tune gemm --json outputs (ktune.tune.gemm / ktune.tune.gemm_plan).

  summarize.py RESULT.json... > table.md
Per shape: cuBLAS default pick and ktune's pick (median us [95 % CI]), the gain (1.000 = the
default kept), TFLOP/s, tune time. Then the distribution of heuristic first pick / best found
(both measured in the search phase) with the shapes above
1.1x, the tune-time distribution, and whether ktune's pick was ever slower than the default."""
import json, statistics, sys

docs = []
for path in sys.argv[1:]:
    try:
        j = json.load(open(path))
    except (OSError, ValueError) as e:
        print(f"<!-- {path}: {e} -->")
        continue
    docs += j["tunes"] if j.get("schema") == "ktune.tune.gemm_plan" else [j]
if not docs:
    print("no results"); sys.exit(0)

def q(xs, p):
    xs = sorted(xs); i = (len(xs) - 1) * p; lo = int(i); hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (i - lo)

print("| shape | dtype | cuBLAS default us [CI] | ktune us [CI] | gain | TFLOP/s | % roof | candidates | failed | tune s |")
print("|---|---|---|---|---|---|---|---|---|---|")
ratios, slower, times, over, statuses = [], [], [], [], {}
for d in docs:
    p, de, w = d["problem"], d["default"], d["winner"]
    shape = f'{p["m"]}x{p["n"]}x{p["k"]}'
    if de.get("status") != "ok" or w.get("status") != "ok":
        print(f'| {shape} | {p["dtype"]} | {de.get("status")} | {w.get("status")} | | | | | | |')
        continue
    gain = de["median_us"] / w["median_us"] if d["replaces_default"] else 1.0
    print(f'| {shape} | {p["dtype"]} | {de["median_us"]:.2f} [{de["ci_us"][0]:.2f}, {de["ci_us"][1]:.2f}] '
          f'| {w["median_us"]:.2f} [{w["ci_us"][0]:.2f}, {w["ci_us"][1]:.2f}] | {gain:.3f} '
          f'| {w["tflops"]:.1f} | {100 * w.get("roof_fraction", 0):.0f} | {d["space"]["candidates"]} '
          f'| {d["failed"]}/{d["evaluations"]} | {d["tune_seconds"]:.2f} |')
    # Both from the search phase (measured minutes apart at most): the heuristic's first pick
    # as attributes, and the fastest checked candidate.
    ok = [c["median_us"] for c in d["evaluated"] if c.get("status") == "ok"]
    first = [c["median_us"] for c in d["evaluated"] if c.get("heuristic_rank") == 0 and c.get("status") == "ok"]
    for c in d["evaluated"]:
        statuses[c.get("status")] = statuses.get(c.get("status"), 0) + 1
    if not first or not ok:
        continue
    r = first[0] / min(ok)
    ratios.append(r)
    times.append(d["tune_seconds"])
    if r > 1.1:
        over.append(f'{shape} {p["dtype"]}: {r:.3f}')
    # Slower: the recommendation's CI entirely above the default's.
    if d["replaces_default"] and w["ci_us"][0] > de["ci_us"][1]:
        slower.append(shape)

print()
print(f"shapes: {len(ratios)}")
if ratios:
    print(f"heuristic first pick / best measured: median {statistics.median(ratios):.4f}, "
          f"q1 {q(ratios, .25):.4f}, q3 {q(ratios, .75):.4f}, p90 {q(ratios, .9):.4f}, max {max(ratios):.4f}")
    print(f"shapes above 1.1x: {len(over)}" + ("".join(f"\n- {o}" for o in over)))
    print(f"tune time per shape: median {statistics.median(times):.2f} s, max {max(times):.2f} s, "
          f"over 10 s: {sum(t > 10 for t in times)}")
    print(f"ktune pick slower than the default (CI apart): {len(slower)} {slower}")
    print(f"default replaced: {sum(d['replaces_default'] for d in docs)} of {len(docs)}")
    print(f"candidate statuses: {statuses}")
