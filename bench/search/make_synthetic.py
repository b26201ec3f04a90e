#!/usr/bin/env python3
"""Synthetic recorded spaces (Kernel Tuner cache format) for held-out validation of `auto`.

Usage: make_synthetic.py OUT_DIR [--seed S] [--models M]
Writes synth_<name>.json.gz, or with --models M analytic-model spaces synth_model_<kind>_<i>
(see make_model). Each space has the shape of a real tuning space, not of any bundled
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


# --- Spaces from an analytic GPU performance model (held-out set 2) -----------------------
# A roofline-with-occupancy model of a tiled kernel on a random GPU: occupancy from threads,
# registers and shared memory per block; latency hiding from occupancy x instruction-level
# parallelism; DRAM traffic from the tile reuse (shared-memory tiling) and coalescing (bytes per
# warp row); shared-memory bank conflicts without padding; wave quantisation over the SMs;
# register spills fail (launch failure); shared memory over the limit is not in the recording.
# A few "needles" (a fast path when vector width, tile and alignment line up) sit on top. The
# generator's seed picks the GPU, the problem and the kernel family; nothing looks at ktune.
KINDS = {
    "gemm": {"block_x": [8, 16, 32, 64, 128], "block_y": [1, 2, 4, 8, 16, 32],
             "tile_x": [1, 2, 4, 8], "tile_y": [1, 2, 4, 8], "k_step": [8, 16, 32, 64],
             "vec": [1, 2, 4], "use_shmem": [0, 1], "pad": [0, 1]},
    "stencil": {"block_x": [16, 32, 64, 128, 256, 512], "block_y": [1, 2, 4, 8, 16],
                "tile_x": [1, 2, 3, 4, 5, 6], "tile_y": [1, 2, 3, 4, 5, 6, 7, 8],
                "unroll": [1, 2, 4], "use_shmem": [0, 1], "use_ldg": [0, 1]},
    "reduce": {"block_x": [32 * i for i in range(1, 33)], "items": [1, 2, 4, 8, 16, 32],
               "vec": [1, 2, 4, 8], "unroll": [1, 2, 4, 8], "warp_shuffle": [0, 1],
               "atomic": [0, 1]},
}


def make_model(name, kind, rng, noise=0.01):
    axes = KINDS[kind]
    names = list(axes)
    sms = rng.choice([46, 68, 80, 108, 132])
    bw = rng.uniform(0.4, 3.3)          # TB/s
    flops = rng.uniform(15, 60)         # TFLOP/s
    smem_sm = rng.choice([64, 100, 164, 228]) * 1024
    m = rng.choice([2048, 3000, 4096, 6144])
    n = rng.choice([1024, 2048, 4096, 5000])
    kdim = rng.choice([256, 1024, 4096]) if kind == "gemm" else 1
    ilp_need = rng.uniform(2, 6)        # warps x ILP to hide latency, per scheduler
    needle_gain = rng.uniform(0.05, 0.15)
    needle = {nm: rng.choice(v) for nm, v in axes.items() if nm in ("vec", "unroll", "tile_x")}
    cache = {}
    for combo in itertools.product(*axes.values()):
        v = dict(zip(names, combo))
        bx, by = v["block_x"], v.get("block_y", 1)
        tx, ty = v.get("tile_x", v.get("items", 1)), v.get("tile_y", 1)
        threads = bx * by
        if threads > 1024 or threads < 32:
            continue
        vec = v.get("vec", 1)
        unroll = v.get("unroll", 1)
        shm = v.get("use_shmem", 0) or v.get("warp_shuffle", 0) == 0 and kind == "reduce"
        pad = v.get("pad", v.get("use_ldg", 0))
        ks = v.get("k_step", 1)
        regs = 24 + 2 * tx * ty + 4 * vec + 3 * unroll + (ks // 8 if shm else 0)
        if kind == "gemm":
            smem = ((bx * tx + by * ty) * ks * 4 + (by * ty * 4 if pad else 0)) if shm else 0
        elif kind == "stencil":
            smem = ((bx * tx + 2) * (by * ty + 2) * 4 + (by * ty * 4 if pad else 0)) if shm else 0
        else:
            smem = (threads * 4 if shm else 0)
        if smem > 48 * 1024:
            continue  # over the per-block limit: the restriction leaves it out
        key = ",".join(str(x) for x in combo)
        entry = dict(v)
        if regs > 255:
            entry.update(time="RuntimeFailedConfig", times=[], compile_time=400.0,
                         verification_time=0, benchmark_time=0)
            cache[key] = entry
            continue
        # Occupancy: resident blocks per SM under each limit.
        blocks = min(2048 // threads, 65536 // (regs * threads), 32,
                     smem_sm // smem if smem else 32)
        if blocks == 0:
            entry.update(time="RuntimeFailedConfig", times=[], compile_time=400.0,
                         verification_time=0, benchmark_time=0)
            cache[key] = entry
            continue
        warps = blocks * ((threads + 31) // 32)
        ilp = tx * ty * min(vec, 4) ** 0.5 * (1 + 0.3 * math.log2(unroll))
        hide = min(1.0, warps / 4 * min(ilp, 8) / (ilp_need * 16))
        # Work and traffic.
        if kind == "reduce":
            elems = m * n
            per_block = threads * tx
            nblocks = math.ceil(elems / (per_block * vec))
            work = elems * 2
            traffic = elems * 4 * (1.0 if vec * 4 >= 16 else 1.0 + 0.15 * (4 - vec))
            sync = (1 + 0.3 * math.log2(threads) * (0.4 if v["warp_shuffle"] else 1.0)) * nblocks
            traffic += (nblocks * 4 * (30 if v["atomic"] else 2))
            extra = sync * 2e-6 + (0 if v["atomic"] else 0.004)
        else:
            nblocks = math.ceil(m / (bx * tx)) * math.ceil(n / (by * ty))
            if kind == "gemm":
                work = 2.0 * m * n * kdim
                reuse = (bx * tx * by * ty) / (bx * tx + by * ty) if shm else \
                    (tx * ty) / (tx + ty) * 1.5
                traffic = 4.0 * m * n * kdim / max(reuse, 0.5) + 8.0 * m * n
                sync = nblocks * (kdim / ks) * 1e-6 if shm else 0
            else:
                work = 10.0 * m * n
                halo = ((bx * tx + 2) * (by * ty + 2)) / (bx * tx * by * ty) if shm else \
                    (3.0 if pad else 5.0) / (1 + 0.1 * min(tx * ty, 8))
                traffic = 4.0 * m * n * (1 + halo)
                sync = nblocks * 5e-6 if shm else 0
            extra = sync * 1e-3
        coal = min(1.0, bx * 4 * (vec if kind != "stencil" else 1) / 128)
        bank = 1.0
        if shm and not pad and kind != "reduce" and (bx * tx) % 32 == 0:
            bank = 1 + 0.5 * min(4, tx)
        waves = math.ceil(nblocks / (sms * blocks))
        quant = nblocks / (waves * sms * blocks)
        t_mem = traffic / coal / (bw * 1e12)
        t_cmp = work / (flops * 1e12) * bank
        t = (max(t_mem, t_cmp) + 0.3 * min(t_mem, t_cmp)) / max(hide, 0.05) / max(quant, 0.05)
        t = t * 1e3 + extra + 0.004  # ms, launch overhead
        if all(v.get(nm) == val for nm, val in needle.items()):
            t *= 1 - needle_gain
        t *= 1 + noise * rng.gauss(0, 1)
        entry.update(time=t, times=[t * (1 + noise * rng.gauss(0, 1)) for _ in range(3)],
                     compile_time=400.0 + 20 * tx * ty, verification_time=0,
                     benchmark_time=30 * t)
        cache[key] = entry
    return {"device_name": "synthetic-model", "kernel_name": name, "problem_size": [m, n],
            "tune_params_keys": names, "tune_params": axes, "objective": "time", "cache": cache}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--models", type=int, default=0,
                    help="write this many analytic-model spaces instead (synth_model_<kind>_<i>)")
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
    if a.models:
        kinds = sorted(KINDS)
        made = ((f"synth_model_{kinds[i % 3]}_{i}", lambda i=i: make_model(
            f"model_{kinds[i % 3]}", kinds[i % 3], rng)) for i in range(a.models))
    else:
        made = ((name, lambda axes=axes, name=name: make(name, axes, rng))
                for name, axes in spaces.items())
    for name, build in made:
        d = build()
        with gzip.open(os.path.join(a.out, name + ".json.gz"), "wt") as f:
            json.dump(d, f)
        ok = [e["time"] for e in d["cache"].values() if isinstance(e["time"], float)]
        k = sum(t <= 1.05 * min(ok) for t in ok)
        print(f"{name}: {len(d['cache'])} configs, {len(ok)} ok, K={k}, random exp "
              f"{(len(ok) + 1) / (k + 1):.1f}")

if __name__ == "__main__":
    main()
