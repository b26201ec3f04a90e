#!/usr/bin/env python3
"""bench_search_replay / kernel_tuner_replay TSV -> the markdown tables of docs/perf/search.md.

Usage: to_markdown.py KTUNE.tsv [KT.tsv]
Cell: median evaluations to 1.05x optimum (IQR) runs-that-reached, and for ktune the median
as a percentage of the random expectation (N+1)/(K+1). Bold: the best ktune median per space.
"""
import sys


def rows(path):
    out = [l.rstrip("\n").split("\t") for l in open(path) if l.strip() and not l.startswith("#")]
    return [r for r in out if r[0] != "space"]


def fmt(x):
    x = float(x)
    return f"{x:.0f}" if x == int(x) else f"{x:.1f}"


def main():
    kt = rows(sys.argv[1])
    spaces, strategies, cell, meta = [], [], {}, {}
    for r in kt:
        sp, st = r[0], r[1]
        if sp not in spaces:
            spaces.append(sp)
        if st not in strategies:
            strategies.append(st)
        meta[sp] = (r[2], r[3], float(r[4]))
        cell[sp, st] = (float(r[5]), f"{fmt(r[5])} ({fmt(r[6])}–{fmt(r[7])}) {r[8]}/{r[9]}, "
                        f"{100 * float(r[10]):.1f} %")
    print("| space | N | K | random exp. | " + " | ".join(strategies) + " |")
    print("|---|---|---|---|" + "---|" * len(strategies))
    for sp in spaces:
        n, k, e = meta[sp]
        best = min(cell[sp, st][0] for st in strategies if (sp, st) in cell)
        cells = []
        for st in strategies:
            if (sp, st) not in cell:
                cells.append("—")
                continue
            m, text = cell[sp, st]
            cells.append(f"**{text}**" if m == best else text)
        print(f"| {sp} | {n} | {k} | {e:.1f} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
