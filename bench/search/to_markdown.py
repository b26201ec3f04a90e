#!/usr/bin/env python3
"""bench_search_replay / kernel_tuner_replay TSV -> the markdown tables of docs/perf/search.md.

Usage: to_markdown.py KTUNE.tsv [KT.tsv]
Cell: median evaluations to 1.05x optimum (IQR) runs-that-reached, and the median as a
percentage of random search's exact median (M counting failed configs). Bold: the best median
per space. Columns are read by name from the header line.
"""
import sys


def rows(path):
    out = [l.rstrip("\n").split("\t") for l in open(path) if l.strip() and not l.startswith("#")]
    head = next(r for r in out if r[0] == "space")
    return [dict(zip(head, r)) for r in out if r[0] != "space"]


def fmt(x):
    x = float(x)
    return f"{x:.0f}" if x == int(x) else f"{x:.1f}"


def main():
    kt = rows(sys.argv[1])
    spaces, strategies, cell, meta = [], [], {}, {}
    for r in kt:
        sp, st = r["space"], r["strategy"]
        if sp not in spaces:
            spaces.append(sp)
        if st not in strategies:
            strategies.append(st)
        meta[sp] = (r["M"], r["K"], float(r["random_median"]), float(r["random_mean"]))
        cell[sp, st] = (float(r["median_evals"]),
                        f"{fmt(r['median_evals'])} ({fmt(r['q1'])}–{fmt(r['q3'])}) "
                        f"{r['reached']}/{r['runs']}, {100 * float(r['ratio_to_random_median']):.1f} %")
    print("| space | M | K | random median | random mean | " + " | ".join(strategies) + " |")
    print("|---|---|---|---|---|" + "---|" * len(strategies))
    for sp in spaces:
        m_, k, med, mean = meta[sp]
        best = min(cell[sp, st][0] for st in strategies if (sp, st) in cell)
        cells = []
        for st in strategies:
            if (sp, st) not in cell:
                cells.append("—")
                continue
            m, text = cell[sp, st]
            cells.append(f"**{text}**" if m == best else text)
        print(f"| {sp} | {m_} | {k} | {med:.0f} | {mean:.1f} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
