"""Median table of bench/profile's profile.jsonl (medians over processes, spread = min..max)."""
import collections
import json
import statistics
import sys

rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip().startswith("{")]
by = collections.defaultdict(list)
host = collections.defaultdict(list)  # launch loop alone, before the final synchronisation
for r in rows:
    if r.get("bench", "").startswith("cpp_"):
        by[(r["bench"], r["mode"])].append(r["median_ms"])
        if "host_ms" in r:
            host[(r["bench"], r["mode"])].append(r["host_ms"])
    elif "tiny_ms" in r:
        for w in ("tiny", "gemm", "graph"):
            by[("torch_" + w, r["mode"])].append(r[w + "_ms"])


def med(v):
    return statistics.median(v), min(v), max(v), len(v)


print("| workload | mode | median ms | min..max | n | vs base | vs raw CUPTI | host ms (launch loop) |")
print("|---|---|---|---|---|---|---|---|")
for w in sorted({k[0] for k in by}):
    base = statistics.median(by[(w, "base")]) if (w, "base") in by else None
    floor = "raw" if (w, "raw") in by else "raw_zeroed"
    raw = statistics.median(by[(w, floor)]) if (w, floor) in by else None
    modes = list(dict.fromkeys(k[1] for k in by if k[0] == w))
    for m in ["base"] + [x for x in modes if x != "base"]:
        if (w, m) not in by:
            continue
        md, lo, hi, n = med(by[(w, m)])
        rel = f"{100 * (md / base - 1):+.1f} %" if base else ""
        over_raw = f"{100 * (md / raw - 1):+.1f} %" if raw and m != "base" and m != floor else ""
        h = f"{statistics.median(host[(w, m)]):.2f}" if host.get((w, m)) else ""
        print(f"| {w} | {m} | {md:.2f} | {lo:.2f}..{hi:.2f} | {n} | {rel} | {over_raw} | {h} |")
for r in rows:
    if r.get("bench") == "session":
        print(f"session: {r['kernels']} kernels, start {r['start_ms']:.2f} ms, stop {r['stop_ms']:.1f} ms"
              f" + save {r['save_ms']:.1f} ms, {r['bytes_per_kernel']:.2f} B/kernel, dropped {r['dropped']}")
for r in rows:
    if r.get("mode") in ("kineto", "proton") and "stop_s" in r:
        print(f"{r['mode']}: stop {r['stop_s']:.2f} s" + (f", start {r['start_s']:.2f} s" if "start_s" in r else ""))
