#!/usr/bin/env python3
"""Kernel Tuner's strategies on the same recorded spaces, in its simulation mode.

Usage: kernel_tuner_replay.py --repeat R --budget N [--strategies a,b] SPACE.json[.gz]...
Prints the same TSV columns as bench_search_replay (random_median: random search's exact median
at the budget, misses as budget + 1; random_mean: (M+1)/(K+1), M counting failed configs).

How Kernel Tuner (1.5) is driven, as its own `tune_cache` does it: the kernel arguments come from
the cache (util.infer_args_from_cache: kernel name, problem size, tune_params; an empty kernel
source is fine in simulation mode), the valid set is the cache's keys (one FunctionConstraint of
*values over tune_params_keys; an old-style single-argument lambda gets the config dict, which is
why the earlier `lambda *vals` version left an empty space and an IndexError), the cache file is
un-gzipped to a temporary file, strategy_options max_fevals is the budget.

"Evaluations" are unique configs in the order Kernel Tuner evaluated them (its results list also
holds repeated cache hits and budget-exhausted entries, which cost nothing and are skipped); a
run reaches the target at the first config within 1.05x of the recorded optimum. Recorded
failures stay in the valid set (as in ktune's replay): they cost an evaluation in both.
"""
import argparse, gzip, json, os, random as pyrandom, signal, statistics, sys, tempfile, time, warnings

import numpy as np
import kernel_tuner
from kernel_tuner import util
from constraint import FunctionConstraint


def quartiles(v):
    a = np.percentile(v, [25, 50, 75])
    return float(a[0]), float(a[1]), float(a[2])


def random_median(m, k, budget):
    """Exact median of random search's evaluations to its first hit (without replacement)."""
    above = 1.0
    for t in range(1, budget + 1):
        i = t - 1
        above *= (m - k - i) / (m - i) if i < m - k else 0.0
        if above <= 0.5:
            return t
    return budget + 1


def numeric(t):
    return isinstance(t, (int, float)) and not isinstance(t, bool) and t < 1e19


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("spaces", nargs="+")
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--budget", type=int, default=500)
    ap.add_argument("--target", type=float, default=1.05)
    ap.add_argument("--run-timeout", type=int, default=120,
                    help="seconds per run; a run over it is reported and its strategy skipped")
    ap.add_argument("--strategies", default="random_sample,genetic_algorithm,simulated_annealing,"
                    "pso,diff_evo,greedy_ils,dual_annealing,bayes_opt")
    a = ap.parse_args()
    warnings.simplefilter("ignore")

    def overtime(*_):
        raise TimeoutError(f"run over {a.run_timeout} s (Kernel Tuner 1.5 loops on some small spaces)")

    signal.signal(signal.SIGALRM, overtime)
    print("space\tstrategy\tbudget\tM\tN\tK\trandom_median\trandom_mean\tmedian_evals\tq1\tq3\t"
          "reached\truns\tratio_to_random_median\tratio_to_random_mean\tbest_over_opt\tseconds",
          flush=True)
    for path in a.spaces:
        d = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
        keys = d["tune_params_keys"]
        cache = d["cache"]
        ok = [e["time"] for e in cache.values() if numeric(e.get("time"))]
        opt = min(ok)
        K = sum(t <= a.target * opt for t in ok)
        N = len(ok)
        tmp = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        json.dump(d, tmp)
        tmp.close()
        args = util.infer_args_from_cache(d)
        members = {tuple(e[k] for k in keys) for e in cache.values()}
        name = os.path.basename(path).split(".")[0]
        # Kernel Tuner stops on max_fevals unique configs; a budget above the space's size makes
        # some strategies (greedy_ils, dual_annealing) loop forever on small spaces.
        budget = min(a.budget, len(cache))
        for strat in a.strategies.split(","):
            evals, best = [], []
            t0 = time.time()
            for r in range(a.repeat):
                np.random.seed(r)
                pyrandom.seed(r)
                try:
                    signal.alarm(a.run_timeout)
                    res, _ = kernel_tuner.tune_kernel(
                        **args, cache=tmp.name, simulation_mode=True, strategy=strat,
                        restrictions=[FunctionConstraint(lambda *v: v in members)],
                        strategy_options={"max_fevals": budget}, quiet=True, verbose=False)
                    signal.alarm(0)
                except Exception as e:  # a strategy that cannot run here is reported, not hidden
                    signal.alarm(0)
                    print(f"# {name} {strat}: {type(e).__name__}: {e}", file=sys.stderr)
                    break
                seen, hit, b = set(), None, None
                for x in res:
                    if not x:
                        continue
                    k = tuple(x.get(p) for p in keys)
                    if k in seen:
                        continue
                    seen.add(k)
                    t = x.get("time")
                    if numeric(t):
                        b = t if b is None else min(b, t)
                        if hit is None and t <= a.target * opt:
                            hit = len(seen)
                # a miss counts as budget + 1 even when the strategy stopped early (dual_annealing does)
                evals.append(hit if hit else budget + 1)
                best.append((b or 0) / opt)
            if not evals:
                continue
            q1, med, q3 = quartiles(evals)
            reached = sum(e <= budget for e in evals)
            M = len(cache)
            exp = (M + 1) / (K + 1)
            rmed = random_median(M, K, budget)
            print(f"{name}\tKT:{strat}\t{a.budget}\t{M}\t{N}\t{K}\t{rmed:.1f}\t{exp:.1f}\t{med:.1f}\t"
                  f"{q1:.1f}\t{q3:.1f}\t{reached}\t{len(evals)}\t{med/rmed:.4f}\t{med/exp:.4f}\t"
                  f"{statistics.median(best):.4f}\t{time.time()-t0:.2f}", flush=True)
        os.unlink(tmp.name)


if __name__ == "__main__":
    main()
