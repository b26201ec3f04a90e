#!/usr/bin/env python3
"""The search targets on one corpus split, from bench_search_replay's TSV (and optionally Kernel
Tuner's rows from kernel_tuner_replay.py, same columns).

Usage: evaluate.py TSV... [--strategy auto] [--main-budget 1000] [--kt KT:strategy]
Per space: the strategy's median evaluations to 1.05x optimum at each budget against random
search's exact median at that budget (random_median: misses count budget + 1, failed configs are
drawn too); at the main budget its ratio to random's median and to random's mean (M+1)/(K+1).
Prints the three targets:
  1. geometric mean of (median / random median) at the main budget, and the share of spaces with
     random mean > 10 where median / random mean <= 0.10;
  2. spaces x budgets where the median is worse than random's median;
  3. with --kt: spaces where the strategy needs fewer evaluations than that Kernel Tuner strategy
     (main budget; a tie counts as not fewer).
"""
import argparse, collections, math, sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tsv", nargs="+")
    ap.add_argument("--strategy", default="auto")
    ap.add_argument("--main-budget", type=int, default=1000)
    ap.add_argument("--kt", default="")
    a = ap.parse_args()
    rows = collections.defaultdict(dict)  # (space, strategy) -> budget -> row
    for path in a.tsv:
        head = None
        for line in open(path):
            f = line.rstrip("\n").split("\t")
            if line.startswith("#") or len(f) < 5:
                continue
            if f[0] == "space":
                head = f
                continue
            r = dict(zip(head, f))
            rows[(r["space"], r["strategy"])][int(r["budget"])] = r
    spaces = sorted({sp for sp, st in rows if st == a.strategy})
    logs, reach, good, worse, beat_kt, kt_n = [], 0, 0, [], 0, 0
    print(f"space\tM\tK\trandom_median\trandom_mean\t{a.strategy}_median\tratio_median\t"
          f"ratio_mean" + (f"\t{a.kt}_median" if a.kt else ""))
    for sp in spaces:
        by_b = rows[(sp, a.strategy)]
        for b, r in sorted(by_b.items()):
            if float(r["median_evals"]) > float(r["random_median"]):
                worse.append(f"{sp}@{b}: {r['median_evals']} > {r['random_median']}")
        r = by_b.get(a.main_budget)
        if not r:
            continue
        med, rmed, rmean = float(r["median_evals"]), float(r["random_median"]), float(r["random_mean"])
        logs.append(math.log(med / rmed))
        if rmean > 10:
            reach += 1
            good += med / rmean <= 0.10
        line = (f"{sp}\t{r['M']}\t{r['K']}\t{rmed:.0f}\t{rmean:.1f}\t{med:.1f}\t{med / rmed:.3f}\t"
                f"{med / rmean:.3f}")
        if a.kt:
            k = rows.get((sp, a.kt), {}).get(a.main_budget)
            if k:
                kt_n += 1
                beat_kt += med < float(k["median_evals"])
                line += f"\t{float(k['median_evals']):.1f}"
            else:
                line += "\t-"
        print(line)
    n = len(logs)
    print(f"# {n} spaces, main budget {a.main_budget}")
    print(f"# geometric mean of {a.strategy} median / random median: {math.exp(sum(logs) / n):.3f} "
          f"(target <= 0.15)")
    print(f"# median / random mean <= 0.10 on {good}/{reach} spaces with random mean > 10 "
          f"({100 * good / max(reach, 1):.0f} %, target >= 75 %)")
    budgets = sorted({b for (sp, st), d in rows.items() if st == a.strategy for b in d})
    print(f"# median worse than random's median at budgets {budgets}: {len(worse)} (target 0)")
    for w in worse:
        print(f"#   {w}")
    if a.kt:
        print(f"# fewer evaluations than {a.kt}: {beat_kt}/{kt_n} spaces "
              f"({100 * beat_kt / max(kt_n, 1):.0f} %, target >= 75 %)")


if __name__ == "__main__":
    main()
