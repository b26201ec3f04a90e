#!/usr/bin/env python3
"""Kernel Tuner's strategies on the same recorded spaces, in its simulation mode.

Usage: kernel_tuner_replay.py --repeat R --budget N [--strategies a,b] SPACE.json.gz...
Prints the same TSV columns as bench_search_replay. "Evaluations" are Kernel Tuner's unique
configs tried (its cache hits on the recording); a run reaches the target at the first config
within 1.05x of the recorded optimum.
"""
import argparse, gzip, json, os, statistics, sys, tempfile, time

import numpy as np
import kernel_tuner


def quartiles(v):
    a = np.percentile(v, [25, 50, 75])
    return float(a[0]), float(a[1]), float(a[2])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("spaces", nargs="+")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--budget", type=int, default=500)
    ap.add_argument("--strategies", default="random_sample,genetic_algorithm,simulated_annealing,"
                    "pso,diff_evo,greedy_ils,dual_annealing,bayes_opt")
    a = ap.parse_args()
    for path in a.spaces:
        d = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
        tp = d["tune_params"]
        keys = d.get("tune_params_keys", list(tp))
        cache = d["cache"]
        ok = [e["time"] for e in cache.values() if isinstance(e["time"], (int, float)) and e["time"] < 1e19]
        opt = min(ok)
        K = sum(t <= 1.05 * opt for t in ok)
        N = len(ok)
        # Kernel Tuner reads an uncompressed cache file.
        tmp = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        json.dump(d, tmp)
        tmp.close()
        members = set(cache.keys())
        restrict = lambda *vals: ",".join(str(v) for v in vals) in members
        name = os.path.basename(path).split(".")[0]
        for strat in a.strategies.split(","):
            evals, best = [], []
            t0 = time.time()
            for r in range(a.repeat):
                np.random.seed(r)
                import random as pyrandom
                pyrandom.seed(r)
                try:
                    res, env = kernel_tuner.tune_kernel(
                        d.get("kernel_name", "k"), "", d.get("problem_size", 1), [], {k: tp[k] for k in keys},
                        restrictions=restrict, strategy=strat, cache=tmp.name, simulation_mode=True,
                        strategy_options={"max_fevals": a.budget}, quiet=True, verbose=False)
                except Exception as e:  # a strategy that cannot run here is reported, not hidden
                    print(f"# {name} {strat}: {type(e).__name__}: {e}", file=sys.stderr)
                    break
                hit = None
                b = None
                for i, x in enumerate(res):
                    t = x.get("time")
                    if isinstance(t, (int, float)) and t < 1e19:
                        b = t if b is None else min(b, t)
                        if hit is None and t <= 1.05 * opt:
                            hit = i + 1
                evals.append(hit if hit else a.budget + 1)
                best.append((b or 0) / opt)
            if not evals:
                continue
            q1, med, q3 = quartiles(evals)
            reached = sum(e <= a.budget for e in evals)
            print(f"{name}\tKT:{strat}\t{N}\t{K}\t{(N+1)/(K+1):.1f}\t{med:.1f}\t{q1:.1f}\t{q3:.1f}\t"
                  f"{reached}\t{len(evals)}\t{med/((N+1)/(K+1)):.3f}\t{statistics.median(best):.4f}\t"
                  f"{time.time()-t0:.2f}", flush=True)
        os.unlink(tmp.name)


if __name__ == "__main__":
    main()
