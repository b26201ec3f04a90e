#!/usr/bin/env python3
"""Synthetic recorded spaces (Kernel Tuner cache format) for held-out validation of `auto`.

Usage: make_synthetic.py OUT_DIR [--seed S]
Writes synth_<name>.json.gz. Each space has the shape of a real tuning space, not of any bundled
recording: ordered axes (block sizes, tiles, unroll) whose effect on time is a smooth bowl
with a random optimum, interactions between pairs of axes, categorical switches that reshape
the landscape (a second basin), a resource constraint (threads per block, shared memory) that
removes configs, a region of launch failures, and multiplicative measurement noise. Nothing
here is tuned to ktune's strategies; the generator's seed picks the landscape.
"""
import argparse, gzip, itertools, json, math, os, random


def make(name, axes, rng, fail_frac=0.05, noise=0.01):
    names = list(axes)
    # Per-axis bowl: optimum at a random index, curvature random; categorical: random offsets.
    centre = {n: rng.randrange(len(v)) for n, v in axes.items()}
    curv = {n: rng.uniform(0.02, 0.25) for n in names}
    cat_off = {n: [rng.uniform(0, 0.4) for _ in v] for n, v in axes.items()}
    for n in names:
        cat_off[n][rng.randrange(len(axes[n]))] = 0.0
    pairs = [(a, b, rng.uniform(-0.08, 0.08)) for a, b in itertools.combinations(names, 2)
             if rng.random() < 0.3]
    switch = names[-1]  # the last axis is a switch that moves every optimum (a second basin)
    shift = {n: rng.randrange(len(v)) for n, v in axes.items()}
    cache = {}
    for combo in itertools.product(*[range(len(v)) for v in axes.values()]):
        cfg = dict(zip(names, combo))
        vals = {n: axes[n][i] for n, i in cfg.items()}
        threads = vals.get("block_x", 1) * vals.get("block_y", 1)
        if threads > 1024 or threads < 32:
            continue  # restriction: not in the recording, like Kernel Tuner's restrictions
        alt = cfg[switch] % 2 == 1
        lt = 0.0
        for n in names[:-1]:
            c = shift[n] if alt else centre[n]
            lt += curv[n] * (cfg[n] - c) ** 2 + (0.5 * cat_off[n][cfg[n]] if n.startswith("use_") else 0)
        for a, b, w in pairs:
            lt += w * (cfg[a] - centre[a]) * (cfg[b] - centre[b]) * 0.1
        lt += cat_off[switch][cfg[switch]]
        t = math.exp(lt) * (1 + noise * rng.gauss(0, 1))
        key = ",".join(str(vals[n]) for n in names)
        entry = dict(vals)
        entry["time"] = t if rng.random() > fail_frac * (1 + cfg[names[0]] / len(axes[names[0]])) \
            else "RuntimeFailedConfig"
        entry["times"] = [t] * 3 if isinstance(entry["time"], float) else []
        entry["compile_time"] = 500.0
        entry["verification_time"] = 0
        entry["benchmark_time"] = 30 * t
        cache[key] = entry
    return {"device_name": "synthetic", "kernel_name": name, "problem_size": [4096, 4096],
            "tune_params_keys": names, "tune_params": axes, "objective": "time", "cache": cache}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=2026)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)
    spaces = {
        "synth_tiles": {"block_x": [16, 32, 64, 128, 256, 512], "block_y": [1, 2, 4, 8, 16],
                        "tile_x": [1, 2, 3, 4, 5, 6, 7, 8], "tile_y": [1, 2, 3, 4, 5, 6, 7, 8],
                        "unroll": [1, 2, 4, 8], "use_shmem": [0, 1]},
        "synth_wide": {"block_x": [32 * i for i in range(1, 33)], "vec": [1, 2, 4, 8],
                       "items": list(range(1, 17)), "use_ldg": [0, 1], "variant": [0, 1, 2, 3]},
        "synth_deep": {"block_x": [32, 64, 128, 256], "block_y": [1, 2, 4, 8], "wm": [1, 2, 4, 8],
                       "wn": [1, 2, 4, 8], "stages": [1, 2, 3, 4, 5], "vec_a": [1, 2, 4],
                       "vec_b": [1, 2, 4], "split_k": [1, 2, 4], "use_swizzle": [0, 1]},
    }
    for name, axes in spaces.items():
        d = make(name, axes, rng)
        with gzip.open(os.path.join(a.out, name + ".json.gz"), "wt") as f:
            json.dump(d, f)
        ok = [e["time"] for e in d["cache"].values() if isinstance(e["time"], float)]
        k = sum(t <= 1.05 * min(ok) for t in ok)
        print(f"{name}: {len(d['cache'])} configs, {len(ok)} ok, K={k}, random exp "
              f"{(len(ok) + 1) / (k + 1):.1f}")


if __name__ == "__main__":
    main()
