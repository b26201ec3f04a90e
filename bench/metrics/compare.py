#!/usr/bin/env python3
"""Join ktune's range-profiler metrics (ktune.kernel_metrics JSON, one entry per workload with
its launch count) with ncu's raw CSV (one row per kernel and metric, same launch order), and print
a markdown table: DRAM bytes ktune/ncu, tensor FLOPs vs 2*N^3, class agreement.

usage: compare.py ktune.json ncu.csv ktune_roofline.json"""
import csv, json, sys
from collections import OrderedDict

ktune = json.load(open(sys.argv[1]))
verdicts = {k["name"]: k for k in json.load(open(sys.argv[3]))["kernels"]}
rows = OrderedDict()
with open(sys.argv[2]) as f:
    lines = [l for l in f if l.startswith('"')]  # skip ncu's "==PROF==" lines
for r in csv.DictReader(lines):
    rows.setdefault(r["ID"], {"name": r["Kernel Name"]})[r["Metric Name"]] = float(
        r["Metric Value"].replace(",", "") or 0)
kernels = list(rows.values())

def ncu_class(k):
    sm = k.get("sm__throughput.avg.pct_of_peak_sustained_elapsed", 0)
    mem = k.get("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", 0)
    if max(sm, mem) < 60:
        return "latency"
    return "compute" if sm > mem else "memory"

print("| workload | kernels | ktune DRAM B | ncu DRAM B | ratio | tensor FLOP / 2N^3 | ktune class | ncu class (SOL) |")
print("|---|---|---|---|---|---|---|---|")
i = agree = total = 0
for w in ktune["kernels"]:
    n = int(w["launches"])
    group = kernels[i:i + n]
    i += n
    kd = w["values"].get("dram__bytes_read.sum", 0) + w["values"].get("dram__bytes_write.sum", 0)
    nd = sum(k.get("dram__bytes_read.sum", 0) + k.get("dram__bytes_write.sum", 0) for k in group) / max(n, 1)
    flops = ""
    if w["name"].startswith("gemm_bf16_"):
        g = int(w["name"].rsplit("_", 1)[1])
        flops = "%.4f" % (w["values"].get("sm__ops_path_tensor_src_bf16_dst_fp32.sum", 0) / (2.0 * g ** 3))
    classes = sorted({ncu_class(k) for k in group})
    nc = "/".join(classes)
    kc = verdicts.get(w["name"], {}).get("class", "?")
    total += 1
    agree += kc in classes
    print("| %s | %d | %.4g | %.4g | %.4f | %s | %s | %s |" % (
        w["name"], n, kd, nd, kd / nd if nd else float("nan"), flops, kc, nc))
print("\nclass agreement: %d of %d workloads; passes per kernel (ktune): %s" % (agree, total, ktune.get("passes")))
