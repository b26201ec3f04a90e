#!/usr/bin/env python3
"""The search target of ktune's Hopper template (docs/perf/gemm.md#hopper-template) on its
brute-forced spaces: evaluations to a config within 1.05x of the optimum, median of 20 seeds,
against random search's expectation, for a strategy alone (`ktune tune --space` replays it) and
in the order `ktune tune gemm` measures: the cost model's first picks (`bench_sm90 --prior`),
then the strategy. A pick within the target ends the count at its place; otherwise the count
is the picks plus the strategy's own evaluations (an upper bound: the tune does not measure a
proposal twice).

    sm90_search.py KTUNE BENCH_SM90 SPACE.json.gz[=MxNxK] ... [--strategy auto] [--picks 2]
"""
import argparse
import gzip
import json
import statistics
import subprocess
import sys


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def composed(picks_good, per_run):
    """Evaluations to the target per run when the picks are measured first."""
    for i, good in enumerate(picks_good):
        if good:
            return [i + 1] * len(per_run)
    return [len(picks_good) + n for n in per_run]


def row(ktune, bench, path, shape, strategy, picks, repeat, seed):
    rep = json.loads(subprocess.run(
        [ktune, "tune", "--space", path, "--strategy", strategy, "--repeat", str(repeat),
         "--seed", str(seed), "--json"], check=True, capture_output=True, text=True).stdout)
    summ = rep["summary"]
    per_run = summ["evals_to_target_per_run"]
    rnd_mean, rnd_median = summ["random"]["mean"], summ["random"]["median"]
    space = load(path)
    opt = rep["space"]["optimum_ms"]
    prior = json.loads(subprocess.run([bench, "--prior", str(picks), shape], check=True,
                                      capture_output=True, text=True).stdout.splitlines()[0])
    times = [space["cache"].get(k, {}).get("time") for k in prior["picks"]]
    good = [isinstance(t, float) and t <= 1.05 * opt for t in times]
    with_picks = composed(good, per_run)
    alone = statistics.median(per_run)
    both = statistics.median(with_picks)
    pick_ratio = "; ".join(f"{k}: {t / opt:.3f}x" if isinstance(t, float) else f"{k}: -"
                           for k, t in zip(prior["picks"], times))
    return (f"| {shape} | {rep['space']['valid']} | {rep['space']['within_target']} | "
            f"{rnd_median:.0f} / {rnd_mean:.1f} | {alone:.1f} ({alone / rnd_mean:.3f}) | "
            f"{pick_ratio} | {both:.1f} ({both / rnd_mean:.4f}) |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ktune")
    ap.add_argument("bench")
    ap.add_argument("spaces", nargs="+", help="FILE=MxNxK (the shape from the file if omitted)")
    ap.add_argument("--strategy", default="auto")
    ap.add_argument("--picks", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    print(f"| shape | configs | within 1.05x | random median / mean | {a.strategy} alone "
          f"(/ random mean) | the prior's {a.picks} picks (time / optimum) | picks, then "
          f"{a.strategy} (/ random mean) |")
    print("|---|---|---|---|---|---|---|")
    for spec in a.spaces:
        path, _, shape = spec.partition("=")
        if not shape:
            p = load(path)["problem_size"]
            shape = "x".join(str(v) for v in p)
        print(row(a.ktune, a.bench, path, shape, a.strategy, a.picks, a.repeat, a.seed))


if __name__ == "__main__":
    sys.exit(main())
