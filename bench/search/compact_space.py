#!/usr/bin/env python3
"""Shrinks a Kernel Tuner cache file for the search corpus: same configs, same outcomes, fewer
bytes (the per-run `times` samples, GFLOP/s and timestamps dropped, times to 6 significant
digits, which is far below the 1.05x target's resolution).

Usage: compact_space.py IN.json[.gz] OUT.json.gz
Replay needs only each config's parameters, its time (or failure string) and its compile and
benchmark times; Kernel Tuner's simulation mode also reads verification, strategy and framework
time, so those stay (strategy and framework time as 0).
"""
import gzip, json, sys

KEEP = ("time", "compile_time", "verification_time", "benchmark_time")


def rounded(v):
    return float(f"{v:.6g}") if isinstance(v, float) else v


def main():
    src, dst = sys.argv[1], sys.argv[2]
    d = json.load(gzip.open(src) if src.endswith(".gz") else open(src))
    keys = d["tune_params_keys"]
    out = {k: d[k] for k in ("device_name", "kernel_name", "problem_size", "tune_params_keys",
                              "tune_params", "objective") if k in d}
    cache = {}
    for key, e in d["cache"].items():
        c = {p: e[p] for p in keys}
        for f in KEEP:
            c[f] = rounded(e.get(f, 0))
        c["strategy_time"] = 0
        c["framework_time"] = 0
        cache[key] = c
    out["cache"] = cache
    with gzip.GzipFile(dst, "wb", compresslevel=9, mtime=0) as f:
        f.write(json.dumps(out, separators=(",", ":")).encode())


if __name__ == "__main__":
    main()
