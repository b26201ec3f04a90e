#!/usr/bin/env python3
"""ktune's sampled metrics side by side with ncu, launch by launch.

Both tools profile the same program (bench_roofline_vs_ncu --mode plain) and see every kernel
launch in the same order, so the i-th profiled launch of one is the i-th of the other (the kernel
names are checked). Prints a markdown table: DRAM bytes ktune/ncu, tensor FLOPs against the
known 2*M*N*K of each GEMM launch, and ktune's roofline class against the class derived from
ncu's SpeedOfLight throughputs.

usage: compare.py KTUNE_METRICS.json KTUNE_ROOFLINE.json NCU.csv MANIFEST.json
  KTUNE_METRICS.json   `ktune roofline TRACE --dump-metrics FILE` (ktune.kernel_metrics)
  KTUNE_ROOFLINE.json  `ktune roofline TRACE --json` (ktune.roofline, classes by launch_index)
  NCU.csv              `ncu --csv --page raw --print-units base --metrics ...`
  MANIFEST.json        `bench_roofline_vs_ncu --manifest FILE` (launches per workload)
"""
import csv
import json
import sys

DRAM = ("dram__bytes_read.sum", "dram__bytes_write.sum")
SM_PCT = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
MEM_PCT = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
TENSOR_PREFIXES = ("sm__ops_path_tensor_src_", "sm__ops_path_tensor_op_")


def number(text):
    """ncu prints thousands separators ("268,435,456") and "n/a"."""
    text = (text or "").replace(",", "").strip()
    try:
        return float(text)
    except ValueError:
        return None


def parse_ncu_csv(text):
    """Rows of `ncu --csv --page raw`, one dict per profiled launch in launch order.

    The wide form (ncu 2023+): a header row ("ID", ..., "Kernel Name", ..., one column per
    metric), then a units row whose ID is empty, then one row per launch. The long form of
    older ncu versions (or --page details) has "Metric Name"/"Metric Value" columns: one row per
    launch and metric, pivoted here by ID. Lines that are not CSV ("==PROF==" banners, program
    output) are skipped."""
    lines = [l for l in text.splitlines() if l.startswith('"')]
    rows = list(csv.reader(lines))
    if not rows:
        return []
    header = rows[0]
    if "Metric Name" in header:
        col = {h: i for i, h in enumerate(header)}
        out = {}
        for r in rows[1:]:
            if len(r) != len(header) or r[col["ID"]] == "ID":
                continue
            k = out.setdefault(r[col["ID"]], {"name": r[col["Kernel Name"]]})
            k[r[col["Metric Name"]]] = number(r[col["Metric Value"]])
        return [out[i] for i in sorted(out, key=lambda x: int(x))]
    out = []
    for r in rows[1:]:
        if len(r) != len(header) or r[0] in ("", "ID"):
            continue  # the units row, a repeated header
        k = {"name": r[header.index("Kernel Name")]}
        for h, v in zip(header, r):
            if "__" in h:  # metric columns: every ncu metric name has a "unit__counter" form
                k[h] = number(v)
        out.append(k)
    return out


def ncu_class(k):
    """ncu's SpeedOfLight verdict as its SOLBottleneck rule words it: below 60 % of peak on both
    compute (SM) and memory throughput means latency issues; otherwise the larger of the two is
    what bounds the kernel."""
    sm, mem = k.get(SM_PCT) or 0.0, k.get(MEM_PCT) or 0.0
    if max(sm, mem) < 60:
        return "latency"
    return "compute" if sm >= mem else "memory"


def tensor_flops(values):
    """Largest tensor count by precision, as ktune's classifier reads it (aggregate vs parts)."""
    agg, parts = {}, {}
    for name, v in values.items():
        if name.startswith(TENSOR_PREFIXES[0]):
            p = name[len(TENSOR_PREFIXES[0]):].split("_")[0]
            agg[p] = agg.get(p, 0) + v
        elif name.startswith(TENSOR_PREFIXES[1]) and "_src_" in name:
            p = name.split("_src_", 1)[1].split("_")[0].split(".")[0]
            parts[p] = parts.get(p, 0) + v
    return sum(max(agg.get(p, 0), parts.get(p, 0)) for p in set(agg) | set(parts))


def short(name):
    return name.split("(")[0].split("<")[0].strip()


def main(argv):
    if len(argv) != 5:
        sys.exit(__doc__)
    ktune = json.load(open(argv[1]))
    classes = {k["launch_index"]: k for k in json.load(open(argv[2]))["kernels"]}
    ncu = parse_ncu_csv(open(argv[3]).read())
    manifest = json.load(open(argv[4]))
    labels = [(w["workload"], w["tensor_flops"]) for w in manifest for _ in range(w["launches"])]
    kt = sorted(ktune["kernels"], key=lambda k: k["launch_index"])
    n = min(len(kt), len(ncu))
    print("launches: ktune %d, ncu %d, manifest %d" % (len(kt), len(ncu), len(labels)))
    print("\n| # | workload | kernel | ktune DRAM B | ncu DRAM B | ktune/ncu | tensor FLOP / 2MNK "
          "| ktune class | ncu class (SM %, mem %) |")
    print("|---|---|---|---|---|---|---|---|---|")
    dram_ok = dram_n = agree = names_ok = 0
    tensor_err = []
    for i in range(n):
        k, c = kt[i], ncu[i]
        wl, expected = labels[i] if i < len(labels) else ("?", 0)
        kd = sum(k["values"].get(m, 0) for m in DRAM)
        nd = sum(c.get(m) or 0 for m in DRAM)
        ratio = kd / nd if nd else float("nan")
        if nd >= 1 << 20:  # launches moving less than 1 MiB: bytes are noise, listed only
            dram_n += 1
            dram_ok += abs(ratio - 1) <= 0.02
        tf = ""
        if expected:
            r = tensor_flops(k["values"]) / expected
            tensor_err.append(abs(r - 1))
            tf = "%.5f" % r
        kc = classes.get(k["launch_index"], {}).get("class", "?")
        nc = ncu_class(c)
        agree += kc == nc
        same = short(k["name"]).startswith(short(c["name"])) or short(c["name"]).startswith(
            short(k["name"]))
        names_ok += same
        print("| %d | %s | %s%s | %.4g | %.4g | %.4f | %s | %s | %s (%.0f, %.0f) |" % (
            i, wl, short(k["name"])[:40], "" if same else " (ncu: %s)" % short(c["name"])[:30],
            kd, nd, ratio, tf, kc, nc, c.get(SM_PCT) or 0, c.get(MEM_PCT) or 0))
    print("\nnames matched launch by launch: %d of %d" % (names_ok, n))
    print("DRAM bytes within 2 %% of ncu: %d of %d launches moving >= 1 MiB" % (dram_ok, dram_n))
    if tensor_err:
        print("bf16 GEMM tensor FLOPs vs 2*M*N*K: worst deviation %.4f %% over %d launches" % (
            100 * max(tensor_err), len(tensor_err)))
    print("class agreement with ncu's SpeedOfLight verdict: %d of %d launches" % (agree, n))
    print("replay passes per kernel: ktune %s" % ktune.get("passes"))


if __name__ == "__main__":
    main(sys.argv)
