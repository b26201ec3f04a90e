#!/usr/bin/env python3
"""ktune's DRAM bytes per profiled kernel against ncu's for the same launch, joined by launch
index (both tools see the launches of bench_roofline_vs_ncu --mode plain in the same order).

Unlike compare.py (one ktune range per launch, joined by position), this also reads documents
of `--replay launches`, where one kernel sample spans N natural launches (pass_launches): it is
joined to ncu's row of its first launch.

usage: compare_replay.py KTUNE_METRICS.json NCU.csv MANIFEST.json LABEL
"""
import json
import sys

from compare import DRAM, parse_ncu_csv


def main(argv):
    if len(argv) != 5:
        sys.exit(__doc__)
    kt = json.load(open(argv[1]))
    ncu = parse_ncu_csv(open(argv[2]).read())
    manifest = json.load(open(argv[3]))
    label = argv[4]
    labels = [w["workload"] for w in manifest for _ in range(w["launches"])]
    print("[%s] replay %s, passes %s, kernels with metrics %d, incomplete %s, cache control %s, "
          "ncu launches %d" % (label, kt.get("replay", "kernel"), kt.get("passes"),
                               len(kt["kernels"]), kt.get("incomplete_kernels", 0),
                               kt.get("cache_control", "?"), len(ncu)))
    print("| launch | workload | pass launches | ktune R / W (MB) | ncu R / W (MB) | ktune/ncu |")
    print("|---|---|---|---|---|---|")
    ok = n = 0
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
        print("| %d | %s | %d | %.2f / %.2f | %.2f / %.2f | %.3f |" % (
            i, wl, k.get("pass_launches", 1), kr / 1e6, kw / 1e6, nr / 1e6, nw / 1e6, ratio))
    print("[%s] DRAM bytes within 2 %% of ncu: %d of %d workloads moving >= 1 MiB" % (label, ok, n))


if __name__ == "__main__":
    main(sys.argv)
