#!/usr/bin/env python3
"""Small adversarial recorded spaces (Kernel Tuner cache format) for the unit test that `auto`
is never worse than random search: 8 x 8 x 8 = 512 configs each, no noise, deterministic.

- adv_needle.json: a flat plateau (every config 1 ms) with one needle at 0.5 ms: no rule can
  learn anything, so only uniform sampling finds it.
- adv_deceptive.json: a smooth bowl that leads every local rule to the corner (0,0,0) at 1 ms,
  while the optimum (0.8 ms) sits alone at the opposite corner, ringed by the slowest configs.
- adv_dense.json: a random landscape where 10 % of the configs are within 1.05x of the optimum:
  random search hits one in a few draws, so any up-front design must not cost more than that.
Usage: make_adversarial.py OUT_DIR
"""
import json, os, random, sys


def write(path, name, timef):
    axes = {"a": list(range(8)), "b": list(range(8)), "c": list(range(8))}
    cache = {}
    for a in axes["a"]:
        for b in axes["b"]:
            for c in axes["c"]:
                cache[f"{a},{b},{c}"] = {"a": a, "b": b, "c": c, "time": timef(a, b, c),
                                         "compile_time": 100.0, "verification_time": 0,
                                         "benchmark_time": 10.0}
    d = {"device_name": "adversarial", "kernel_name": name, "problem_size": [512],
         "tune_params_keys": list(axes), "tune_params": axes, "objective": "time",
         "cache": cache}
    with open(path, "w") as f:
        json.dump(d, f, separators=(",", ":"))


def main():
    out = sys.argv[1]
    write(os.path.join(out, "adv_needle.json"), "needle",
          lambda a, b, c: 0.5 if (a, b, c) == (5, 2, 6) else 1.0)

    def deceptive(a, b, c):
        if (a, b, c) == (7, 7, 7):
            return 0.8
        if max(a, b, c) == 7 and min(a, b, c) >= 6:
            return 5.0  # the ring around the optimum: the slowest configs of the space
        return 1.0 + 0.1 * (a + b + c)

    write(os.path.join(out, "adv_deceptive.json"), "deceptive", deceptive)
    rng = random.Random(5)
    dense = {}
    for a in range(8):
        for b in range(8):
            for c in range(8):
                dense[(a, b, c)] = 1.0 + (rng.random() * 0.04 if rng.random() < 0.1 else
                                          0.2 + rng.random())
    write(os.path.join(out, "adv_dense.json"), "dense", lambda a, b, c: dense[(a, b, c)])


if __name__ == "__main__":
    main()
