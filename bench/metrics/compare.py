#!/usr/bin/env python3
"""ktune's sampled metrics side by side with ncu, launch by launch.

Both tools profile the same program (bench_roofline_vs_ncu --mode plain) and see every kernel
launch in the same order, so the i-th profiled launch of one is the i-th of the other (the kernel
names are checked). Prints a markdown table: DRAM bytes ktune/ncu, tensor FLOPs against the
known 2*M*N*K of each GEMM launch, and ktune's roofline class against the class derived from
ncu's SpeedOfLight throughputs.

usage: compare.py KTUNE_METRICS.json KTUNE_ROOFLINE.json NCU.csv MANIFEST.json [LABEL]
  KTUNE_METRICS.json   `ktune roofline TRACE --dump-metrics FILE` (ktune.kernel_metrics)
  KTUNE_ROOFLINE.json  `ktune roofline TRACE --json` (ktune.roofline, classes by launch_index)
  NCU.csv              `ncu --csv --page raw --print-units base --metrics ...`
  MANIFEST.json        `bench_roofline_vs_ncu --manifest FILE` (launches per workload)
  LABEL                names the pairing in the summary lines (e.g. "ktune all / ncu all")
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
    """ncu's SpeedOfLight verdict, from the decision tree of its SpeedOfLight rule (thresholds
    balanced 10, latency 60, no-bound 80; Nsight Compute 2025.x sections/SpeedOfLight.py):
      both SM and memory throughput < 80 %:
        both < 60 %                       -> latency ("low compute throughput and memory
                                             bandwidth ... typically indicate latency issues")
        |SM - memory| >= 10 points        -> the higher one ("Compute/Memory is more heavily
                                             utilized")
        otherwise                         -> balanced ("well-balanced")
      either >= 80 %                      -> the higher one (the rule sends the reader to the
                                             Compute or Memory Workload Analysis of the higher)"""
    sm, mem = k.get(SM_PCT) or 0.0, k.get(MEM_PCT) or 0.0
    if sm < 80 and mem < 80:
        if sm < 60 and mem < 60:
            return "latency"
        if abs(sm - mem) < 10:
            return "balanced"
    return "compute" if sm >= mem else "memory"


# Level of a memory-throughput breakdown metric (`--metrics breakdown:gpu__compute_memory_...`).
LEVELS = (("dram__", "DRAM"), ("fbpa__", "DRAM"), ("lts__", "L2"), ("l1tex__", "L1/shared"))
# ktune's level metrics, read by both tools (metric_set.hpp names::l2_pct ...).
KTUNE_LEVELS = (("L2", ("lts__t_sectors.avg.pct_of_peak_sustained_elapsed",)),
                ("L1", ("l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed",
                        "l1tex__data_bank_writes.avg.pct_of_peak_sustained_elapsed",
                        "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed")),
                ("issue", ("sm__inst_executed.avg.pct_of_peak_sustained_elapsed",)))


def ncu_top_level(k):
    """The busiest memory unit among ncu's breakdown columns: (level, metric, %), or None."""
    best = None
    for name, v in k.items():
        if v is None or not name.endswith(".pct_of_peak_sustained_elapsed") or name == MEM_PCT:
            continue
        for prefix, level in LEVELS:
            if name.startswith(prefix) and (best is None or v > best[2]):
                best = (level, name, v)
    return best


def level_values(values):
    """ktune's level throughputs (L2, L1, issue) from a metrics dict; None where absent."""
    out = {}
    for level, names in KTUNE_LEVELS:
        got = [values[n] for n in names if values.get(n) is not None]
        out[level] = max(got) if got else None
    return out


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
    if len(argv) not in (5, 6):
        sys.exit(__doc__)
    ktune = json.load(open(argv[1]))
    classes = {k["launch_index"]: k for k in json.load(open(argv[2]))["kernels"]}
    ncu = parse_ncu_csv(open(argv[3]).read())
    manifest = json.load(open(argv[4]))
    labels = [(w["workload"], w["tensor_flops"]) for w in manifest for _ in range(w["launches"])]
    kt = sorted(ktune["kernels"], key=lambda k: k["launch_index"])
    label = argv[5] if len(argv) > 5 else "ktune / ncu"
    n = min(len(kt), len(ncu))
    print("launches: ktune %d, ncu %d, manifest %d; ktune cache control: %s" % (
        len(kt), len(ncu), len(labels), ktune.get("cache_control", "?")))
    print("\n| # | workload | ktune DRAM R / W B | ncu DRAM R / W B | ktune/ncu | tensor FLOP / 2MNK "
          "| ktune class (bound by) | ncu class (SM %, mem %; busiest unit) "
          "| L2 % ktune/ncu | L1 % ktune/ncu | issue % ktune/ncu |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    dram_ok = dram_n = agree = names_ok = balanced = level_ok = level_n = 0
    tensor_err = []
    fmt_pct = lambda a, b: "%s / %s" % ("-" if a is None else "%.0f" % a,
                                        "-" if b is None else "%.0f" % b)
    for i in range(n):
        k, c = kt[i], ncu[i]
        wl, expected = labels[i] if i < len(labels) else ("?", 0)
        kr, kw = (k["values"].get(m, 0) for m in DRAM)
        nr, nw = ((c.get(m) or 0) for m in DRAM)
        kd, nd = kr + kw, nr + nw
        ratio = kd / nd if nd else float("nan")
        if nd >= 1 << 20:  # launches moving less than 1 MiB: bytes are noise, listed only
            dram_n += 1
            dram_ok += abs(ratio - 1) <= 0.02
        tf = ""
        if expected:
            r = tensor_flops(k["values"]) / expected
            tensor_err.append(abs(r - 1))
            tf = "%.5f" % r
        point = classes.get(k["launch_index"], {})
        kc, unit = point.get("class", "?"), point.get("bound_by", "?")
        nc = ncu_class(c)
        agree += kc == nc
        balanced += nc == "balanced"
        top = ncu_top_level(c)
        if kc == "memory" and nc == "memory" and top:
            level_n += 1
            level_ok += unit == top[0]
        same = short(k["name"]).startswith(short(c["name"])) or short(c["name"]).startswith(
            short(k["name"]))
        names_ok += same
        kl, nl = level_values(k["values"]), level_values(c)
        print("| %d | %s%s | %.4g / %.4g | %.4g / %.4g | %.4f | %s | %s (%s) | %s (%.0f, %.0f%s) "
              "| %s | %s | %s |" % (
                  i, wl, "" if same else " (names differ: %s / %s)" % (
                      short(k["name"])[:24], short(c["name"])[:24]),
                  kr, kw, nr, nw, ratio, tf, kc, unit, nc, c.get(SM_PCT) or 0,
                  c.get(MEM_PCT) or 0, "; %s %.0f" % (top[0], top[2]) if top else "",
                  fmt_pct(kl["L2"], nl["L2"]), fmt_pct(kl["L1"], nl["L1"]),
                  fmt_pct(kl["issue"], nl["issue"])))
    print("\n[%s] names matched launch by launch: %d of %d" % (label, names_ok, n))
    print("[%s] DRAM bytes within 2 %% of ncu: %d of %d launches moving >= 1 MiB" % (
        label, dram_ok, dram_n))
    if tensor_err:
        print("[%s] bf16 GEMM tensor FLOPs vs 2*M*N*K: worst deviation %.4f %% over %d launches" % (
            label, 100 * max(tensor_err), len(tensor_err)))
    print("[%s] class agreement with ncu's SpeedOfLight verdict: %d of %d launches (%d balanced "
          "by ncu's rule, which ktune never says)" % (label, agree, n, balanced))
    if level_n:
        print("[%s] memory-bound on both: ktune's level = ncu's busiest unit on %d of %d" % (
            label, level_ok, level_n))
    print("[%s] replay passes per kernel: ktune %s" % (label, ktune.get("passes")))


if __name__ == "__main__":
    main(sys.argv)
