#!/usr/bin/env python3
"""ktune's DRAM bytes per profiled kernel against ncu's for the same launch, joined by launch
index (both tools see the launches of bench_roofline_vs_ncu --mode plain in the same order).

Unlike compare.py (one ktune range per launch, joined by position), this also reads documents
of `--replay launches`, where one kernel sample spans N natural launches (pass_launches): it is
joined to ncu's row of its first launch.

With ktune's `roofline --json` output (ROOFLINE.json) and an ncu CSV that carries the
SpeedOfLight throughputs, ktune's class is compared with ncu's SpeedOfLight verdict (compare.py's
ncu_class) for the same sample.

usage: compare_replay.py KTUNE_METRICS.json NCU.csv MANIFEST.json LABEL [ROOFLINE.json]
"""
import json
import sys

from compare import DRAM, MEM_PCT, SM_PCT, ncu_class, parse_ncu_csv


def main(argv):
    if len(argv) not in (5, 6):
        sys.exit(__doc__)
    classes = {}
    if len(argv) == 6:
        classes = {k["launch_index"]: k for k in json.load(open(argv[5]))["kernels"]}
    kt = json.load(open(argv[1]))
    ncu = parse_ncu_csv(open(argv[2]).read())
    manifest = json.load(open(argv[3]))
    label = argv[4]
    labels = [w["workload"] for w in manifest for _ in range(w["launches"])]
    print("[%s] replay %s, passes %s, kernels with metrics %d, incomplete %s, cache control %s, "
          "ncu launches %d" % (label, kt.get("replay", "kernel"), kt.get("passes"),
                               len(kt["kernels"]), kt.get("incomplete_kernels", 0),
                               kt.get("cache_control", "?"), len(ncu)))
    print("| launch | workload | pass launches | ktune R / W (MB) | ncu R / W (MB) | ktune/ncu "
          "| ktune class (bound by) | ncu class (SM %, mem %) |")
    print("|---|---|---|---|---|---|---|---|")
    ok = n = agree = judged = 0
    seen = set()
    for k in sorted(kt["kernels"], key=lambda k: k["launch_index"]):
        i = k["launch_index"]
        if i >= len(ncu):
            continue
        wl = labels[i] if i < len(labels) else "?"
        if wl in seen:  # one sample per workload: --max-per-kernel may give several
            continue
        seen.add(wl)
        c = ncu[i]
        kr, kw = (k["values"].get(m, 0) for m in DRAM)
        nr, nw = ((c.get(m) or 0) for m in DRAM)
        ratio = (kr + kw) / (nr + nw) if nr + nw else float("nan")
        if nr + nw >= 1 << 20:
            n += 1
            ok += abs(ratio - 1) <= 0.02
        kc = nc = "-"
        if classes and c.get(SM_PCT) is not None and c.get(MEM_PCT) is not None:
            point = classes.get(i, {})
            kc = "%s (%s)" % (point.get("class", "?"), point.get("bound_by", "?"))
            nc = "%s (%.0f, %.0f)" % (ncu_class(c), c[SM_PCT], c[MEM_PCT])
            judged += 1
            agree += point.get("class") == ncu_class(c)
        print("| %d | %s | %d | %.2f / %.2f | %.2f / %.2f | %.3f | %s | %s |" % (
            i, wl, k.get("pass_launches", 1), kr / 1e6, kw / 1e6, nr / 1e6, nw / 1e6, ratio, kc,
            nc))
    print("[%s] DRAM bytes within 2 %% of ncu: %d of %d workloads moving >= 1 MiB" % (label, ok, n))
    if judged:
        print("[%s] class agreement with ncu's SpeedOfLight verdict: %d of %d workloads" % (
            label, agree, judged))


if __name__ == "__main__":
    main(sys.argv)
