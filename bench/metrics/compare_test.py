#!/usr/bin/env python3
"""compare.py's ncu CSV parser and SOL class on small samples (run by ctest: metrics_compare_py).

tests/data/metrics/ncu_raw_wide.csv is captured from ncu 2025 on an H200 (2026-11-21,
bench/metrics/gpu_step.sh step_metrics_ncu, 3 of its 16 launches kept): the wide form of
`ncu --csv --page raw` (header with ~300 columns, units row, one row per launch, "==PROF==" and
"==WARNING==" lines around it)."""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import compare  # noqa: E402

data = os.path.join(here, "..", "..", "tests", "data", "metrics")
rows = compare.parse_ncu_csv(open(os.path.join(data, "ncu_raw_wide.csv")).read())
assert [r["name"] for r in rows] == ["k_copy", "k_tiny",
                                     "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT"], rows
assert rows[0]["dram__bytes_read.sum"] == 268447744.0  # thousands separators
assert rows[2]["sm__ops_path_tensor_src_bf16_dst_fp32.sum"] == 2.0 * 4096 ** 3
assert rows[0]["device__attribute_display_name"] is None  # a text column is no number
assert "Block Size" not in rows[0] and "ID" not in rows[0]  # only metric columns
assert [compare.ncu_class(r) for r in rows] == ["memory", "latency", "compute"]
na = '"ID","Kernel Name","dram__bytes_write.sum"\n"","","byte"\n"0","k","n/a"'
assert compare.parse_ncu_csv(na)[0]["dram__bytes_write.sum"] is None

long_form = "\n".join([
    '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"',
    '"1","b","dram__bytes_read.sum","byte","2"',
    '"0","a","dram__bytes_read.sum","byte","1,000"',
    '"0","a","sm__throughput.avg.pct_of_peak_sustained_elapsed","%","70"',
])
rows = compare.parse_ncu_csv(long_form)
assert [r["name"] for r in rows] == ["a", "b"] and rows[0]["dram__bytes_read.sum"] == 1000.0
assert compare.ncu_class(rows[0]) == "compute"

# The SpeedOfLight rule's whole decision tree: balanced inside 60..80 within 10 points; the
# higher one at or above 80 even when the other is close (GEMM 8192^3 on the H200: 93 / 95).
sol = compare.SM_PCT, compare.MEM_PCT
cls = lambda sm, mem: compare.ncu_class({sol[0]: sm, sol[1]: mem})
assert [cls(59, 59), cls(70, 65), cls(70, 55), cls(55, 70), cls(93, 95), cls(81, 20)] == [
    "latency", "balanced", "compute", "memory", "memory", "compute"]
top = compare.ncu_top_level({compare.MEM_PCT: 81.0,
                             "dram__throughput.avg.pct_of_peak_sustained_elapsed": 2.0,
                             "lts__throughput.avg.pct_of_peak_sustained_elapsed": 30.0,
                             "l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed": 81.0,
                             "l1tex__throughput.avg.pct_of_peak_sustained_active": 99.0})
assert top[0] == "L1/shared" and top[2] == 81.0, top  # only "_elapsed" breakdown parts count
lv = compare.level_values({"l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed": 40.0,
                           "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed":
                           60.0})
assert lv == {"L2": None, "L1": 60.0, "issue": None}, lv

# Aggregate and per-instruction tensor counters of one precision are not added twice.
v = {"sm__ops_path_tensor_src_bf16_dst_fp32.sum": 10.0,
     "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum": 10.0,
     "sm__ops_path_tensor_op_hgmma_src_fp16.sum": 4.0}
assert compare.tensor_flops(v) == 14.0, compare.tensor_flops(v)
print("compare.py parser: ok")
