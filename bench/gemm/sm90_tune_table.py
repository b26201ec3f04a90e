#!/usr/bin/env python3
"""Summarises `ktune tune gemm --json` reports with ktune's Hopper template in the space
(docs/perf/gemm.md#hopper-template): per shape, cuBLAS's default, the best cuBLASLt candidate
measured, the best template config measured, their ratio, the winner and the tune time. With
--copy (a `ktune device --measure --json` report), each time also as % of the copy roof: the
bytes of A, B (1 an element for fp8, else 2) and D (2) once over the measured copy bandwidth
(decode shapes, docs/perf/gemm.md#hopper-split-k).

    sm90_tune_table.py [--copy device.json] out/gemm_sm90_tune_*.json
"""
import json
import sys


def describe(a):
    if a.get("provider") == "ktune_sm90":
        splits = a.get("splits", 1)
        return "sm90 bn{bn} s{stages} c{consumers} g{group} x{cluster}{b} e{epi_parts} t{t}{k}{ab}".format(
            t=a.get("tma_store", 0), k=f" k{splits}" if splits != 1 else "",
            b="b" if a.get("cluster_b", 0) else "", ab=" ab" if a.get("swap_ab", 0) else "", **a)
    return "cublaslt algo {algo} tile {tile}".format(**a)


def copy_pct(p, us, copy_gbs):
    """% of the copy roof: A, B and D's bytes once in `us` (D is bf16 for fp8 inputs)."""
    eb = 1.0 if p.get("dtype") == "fp8" else 2.0
    moved = eb * (p["m"] * p["k"] + p["n"] * p["k"]) + 2.0 * p["m"] * p["n"]
    return 100.0 * moved / (us * 1e-6) / (copy_gbs * 1e9)


def row(doc, copy_gbs=None):
    p = doc["problem"]
    shape = f'{p["m"]}x{p["n"]}x{p["k"]}'
    if p.get("dtype", "bf16") != "bf16" or p.get("epilogue", "none") != "none":
        shape += f' {p.get("dtype", "bf16")}' + (
            f' {p["epilogue"]}' if p.get("epilogue", "none") != "none" else "")
    if doc.get("b_operand") == "weights":  # tuned with --b-operand weights
        shape += " (B weights)"
    ok = [c for c in doc["evaluated"] if c["status"] == "ok"]
    lt = [c for c in ok if c["algo"].get("provider") != "ktune_sm90"]
    own = [c for c in ok if c["algo"].get("provider") == "ktune_sm90"]
    best_lt = min(lt, key=lambda c: c["median_us"]) if lt else None
    best_own = min(own, key=lambda c: c["median_us"]) if own else None
    ratio = best_lt["median_us"] / best_own["median_us"] if best_lt and best_own else float("nan")
    n_own = sum(1 for c in doc["evaluated"] if c["algo"].get("provider") == "ktune_sm90")
    # fp8 at M % 16 != 0: cuBLASLt does not run it, the default is the template's first pick.
    own_default = doc["default"]["algo"].get("provider") == "ktune_sm90"
    digits = 2 if copy_gbs else 1
    dflt = f'{doc["default"]["median_us"]:.{digits}f}' + (" (template)" if own_default else "")
    lt_us = f'{best_lt["median_us"]:.{digits}f}' if best_lt else "—"
    if copy_gbs:
        pct = [copy_pct(p, c["median_us"], copy_gbs) if c else float("nan")
               for c in (doc["default"], best_lt, best_own)]
        return (f'| {shape} | {dflt} ({pct[0]:.1f} %) | '
                f'{lt_us} ({pct[1]:.1f} %) | '
                f'{best_own["median_us"]:.2f} ({pct[2]:.1f} %) | '
                f'{doc["default"]["median_us"] / best_own["median_us"]:.3f} | {ratio:.3f} | '
                f'{describe(best_own["algo"])} | {doc["tune_seconds"]:.1f} |')
    return (f'| {shape} | {dflt} | '
            f'{lt_us} | '
            f'{best_own["median_us"]:.1f} ({describe(best_own["algo"])}) | {ratio:.3f} | '
            f'{n_own} of {len(doc["evaluated"])} | {describe(doc["winner"]["algo"])} '
            f'{doc["winner"].get("median_us", 0):.1f} | {doc["tune_seconds"]:.1f} |')


def main(args):
    copy_gbs = None
    if args[:1] == ["--copy"]:
        with open(args[1]) as f:
            copy_gbs = json.load(f)["measured_peaks"]["dram_gbs"]
        args = args[2:]
        print(f"copy roof {copy_gbs:.0f} GB/s (ktune device --measure)")
        print("| shape | cuBLAS default µs (% copy) | best cuBLASLt µs (% copy) | best template µs "
              "(% copy) | template vs default | template vs best cuBLASLt | template config | "
              "tune s |")
    else:
        print("| shape | cuBLAS default µs | best cuBLASLt µs | best template µs (config) | "
              "template vs best cuBLASLt | template configs measured | winner µs | tune s |")
    print("|---|---|---|---|---|---|---|---|")
    for path in args:
        with open(path) as f:
            doc = json.load(f)
        if doc.get("schema") == "ktune.tune.gemm":  # a glob may catch the cache file too
            print(row(doc, copy_gbs))


if __name__ == "__main__":
    main(sys.argv[1:])
