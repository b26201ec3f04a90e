#!/usr/bin/env python3
"""Summarises `ktune tune gemm --json` reports with ktune's Hopper template in the space
(docs/perf/gemm.md#hopper-template): per shape, cuBLAS's default, the best cuBLASLt candidate
measured, the best template config measured, their ratio, the winner and the tune time.

    sm90_tune_table.py out/gemm_sm90_tune_*.json
"""
import json
import sys


def describe(a):
    if a.get("provider") == "ktune_sm90":
        return "sm90 bn{bn} s{stages} c{consumers} g{group} x{cluster} e{epi_parts} t{t}".format(
            t=a.get("tma_store", 0), **a)
    return "cublaslt algo {algo} tile {tile}".format(**a)


def row(doc):
    p = doc["problem"]
    shape = f'{p["m"]}x{p["n"]}x{p["k"]}'
    ok = [c for c in doc["evaluated"] if c["status"] == "ok"]
    lt = [c for c in ok if c["algo"].get("provider") != "ktune_sm90"]
    own = [c for c in ok if c["algo"].get("provider") == "ktune_sm90"]
    best_lt = min(lt, key=lambda c: c["median_us"]) if lt else None
    best_own = min(own, key=lambda c: c["median_us"]) if own else None
    ratio = best_lt["median_us"] / best_own["median_us"] if best_lt and best_own else float("nan")
    n_own = sum(1 for c in doc["evaluated"] if c["algo"].get("provider") == "ktune_sm90")
    return (f'| {shape} | {doc["default"]["median_us"]:.1f} | '
            f'{best_lt["median_us"]:.1f} | '
            f'{best_own["median_us"]:.1f} ({describe(best_own["algo"])}) | {ratio:.3f} | '
            f'{n_own} of {len(doc["evaluated"])} | {describe(doc["winner"]["algo"])} '
            f'{doc["winner"].get("median_us", 0):.1f} | {doc["tune_seconds"]:.1f} |')


def main(paths):
    print("| shape | cuBLAS default µs | best cuBLASLt µs | best template µs (config) | "
          "template vs best cuBLASLt | template configs measured | winner µs | tune s |")
    print("|---|---|---|---|---|---|---|---|")
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        if doc.get("schema") == "ktune.tune.gemm":  # a glob may catch the cache file too
            print(row(doc))


if __name__ == "__main__":
    main(sys.argv[1:])
