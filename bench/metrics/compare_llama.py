#!/usr/bin/env python3
"""Roofline verdicts without replay on a PyTorch workload, against ncu's SpeedOfLight rule.

Coverage: every kernel (by name) with >= 2 % of the trace's kernel time must have at least one
roofline point. Agreement: each ktune point (one per kernel and work) is matched to the ncu
launches of the same kernel name whose duration is closest to the time of the launch ktune
profiled (a kernel run at several problem sizes has one ncu launch per size), and ktune's class
is compared with ncu_class (bench/metrics/compare.py: the SpeedOfLight rule's decision tree).

usage: compare_llama.py TOP.json ROOFLINE.json METRICS.json NCU.csv LABEL
  TOP.json      `ktune top TRACE --json --limit 1000` (kernel time by name)
  ROOFLINE.json `ktune roofline TRACE --latency-pct 60 --json`
  METRICS.json  `ktune roofline TRACE --dump-metrics FILE` (per-sample kernel time)
  NCU.csv       `ncu --csv --page raw --print-units base --metrics gpu__time_duration.sum,SM %,mem %`
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import ncu_class, parse_ncu_csv  # noqa: E402

PROFILER_KERNELS = {"WaitNs", "ktune_l2_sweep"}
WORK = re.compile(r" \[w:[0-9a-f]{4}\]$")


def strip_params(name):
    """`name` without its parameter list: cut at the last '(' outside template brackets."""
    depth, cut = 0, len(name)
    for i, ch in enumerate(name):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0:
            cut = i
    return name[:cut]


def full(name):
    """A demangled name in a form both demanglers agree on: no work suffix, no parameter list,
    no namespace qualifiers (ncu prints `at::<unnamed>::` where c++filt prints
    `at::native::(anonymous namespace)::`), lambdas spelled one way, no spaces."""
    n = WORK.sub("", name).replace("(anonymous namespace)::", "").replace("<unnamed>::", "")
    n = re.sub(r"\{lambda\(([^)]*)\)#(\d+)\}", r"[lambda(\1) (instance \2)]", n)
    n = re.sub(r"\boperator\s*\(\)", "operator()", n)
    n = strip_params(n)
    n = re.sub(r"\b[A-Za-z_]\w*::", "", n)
    return re.sub(r"\s+", "", n)


def base(name):
    """The function's own name: no template arguments, no qualifiers."""
    n = full(name)
    return re.split(r"[<(\[]", n)[0].removeprefix("void")


def main(argv):
    if len(argv) != 6:
        sys.exit(__doc__)
    top = json.load(open(argv[1]))
    try:
        points = json.load(open(argv[2]))["kernels"]
    except (OSError, ValueError, KeyError) as e:
        sys.exit("[%s] no roofline points in %s (%s): see the roofline's stderr" % (
            argv[5], argv[2], e))
    samples = {(k["name"], k["launch_index"]): k for k in json.load(open(argv[3]))["kernels"]}
    ncu = parse_ncu_csv(open(argv[4]).read())
    label = argv[5]
    # The profiler's own kernels (CUPTI's WaitNs, ktune's L2 sweep) are not the workload's.
    rows = [r for r in top["rows"] if base(r["name"]) not in PROFILER_KERNELS]
    total = sum(r["total_ns"] for r in rows) or 1
    hot = [r for r in rows if r["total_ns"] / total >= 0.02]
    # Coverage is per kernel as `ktune top` lists it (each template instance on its own).
    have = {full(p["name"]) for p in points}
    covered = [r for r in hot if full(r["name"]) in have]
    print("\n## %s\n" % label)
    print("kernels with >= 2 %% of kernel time: %d; with a roofline verdict: %d" %
          (len(hot), len(covered)))
    for r in hot:
        if full(r["name"]) not in have:
            print("  NO VERDICT: %.1f %% %s" % (100 * r["total_ns"] / total, r["name"][:100]))
    # ncu run with --print-kernel-base mangled names its launches as `ktune top` records them.
    mangled = {r["name"]: r.get("mangled", "") for r in rows}
    by_name, by_full, by_mangled = {}, {}, {}
    for c in ncu:
        by_mangled.setdefault(c["name"], []).append(c)
        by_name.setdefault(base(c["name"]), []).append(c)
        by_full.setdefault(full(c["name"]), []).append(c)
    hot_names = {full(r["name"]) for r in hot}
    print("\n| kernel | time % (name) | ktune launch us | ncu launch us | ktune class (bound by) "
          "| ncu class (SM %, mem %) | agree |")
    print("|---|---|---|---|---|---|---|")
    agree = n = 0
    for p in sorted(points, key=lambda p: -p["time_share"]):
        b = base(p["name"])
        if full(p["name"]) not in hot_names:
            continue
        s = samples.get((p["name"], p["launch_index"]), {})
        t = s.get("values", {}).get("gpu__time_duration.sum")
        cands = (by_mangled.get(mangled.get(WORK.sub("", p["name"])) or "\0") or
                 by_full.get(full(p["name"])) or by_name.get(b, []))
        if not cands or t is None:
            print("| %s | %.1f | %s | - | %s (%s) | no ncu launch | - |" % (
                p["name"][:60], 100 * p["time_share"], t and "%.1f" % (t / 1e3), p["class"],
                p["bound_by"]))
            continue
        c = min(cands, key=lambda c: abs((c.get("gpu__time_duration.sum") or 0) - t))
        nc = ncu_class(c)
        ok = p["class"] == nc
        n += 1
        agree += ok
        print("| %s | %.1f | %.1f | %.1f | %s (%s) | %s (%.0f, %.0f) | %s |" % (
            p["name"][:60], 100 * p["time_share"], t / 1e3,
            (c.get("gpu__time_duration.sum") or 0) / 1e3, p["class"], p["bound_by"], nc,
            c.get("sm__throughput.avg.pct_of_peak_sustained_elapsed") or 0,
            c.get("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed") or 0,
            "yes" if ok else "NO"))
    print("\n[%s] hot kernels with a verdict: %d of %d" % (label, len(covered), len(hot)))
    print("[%s] class agrees with ncu's SpeedOfLight rule: %d of %d points (%.0f %%)" % (
        label, agree, n, 100.0 * agree / n if n else 0))


if __name__ == "__main__":
    main(sys.argv)
