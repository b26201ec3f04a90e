#!/usr/bin/env python3
"""compare.py's ncu CSV parser and SOL class on small samples (run by ctest: metrics_compare_py).

tests/data/metrics/ncu_raw_wide.csv is the wide form of `ncu --csv --page raw` (header, units
row, one row per launch, "==PROF==" lines around it)."""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import compare  # noqa: E402

data = os.path.join(here, "..", "..", "tests", "data", "metrics")
rows = compare.parse_ncu_csv(open(os.path.join(data, "ncu_raw_wide.csv")).read())
assert [r["name"] for r in rows] == ["k_copy", "k_tiny",
                                     "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"], rows
assert rows[0]["dram__bytes_read.sum"] == 268476416.0  # thousands separators
assert rows[1]["dram__bytes_write.sum"] is None  # "n/a"
assert "Block Size" not in rows[0] and "ID" not in rows[0]  # only metric columns
assert [compare.ncu_class(r) for r in rows] == ["memory", "latency", "compute"]

long_form = "\n".join([
    '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"',
    '"1","b","dram__bytes_read.sum","byte","2"',
    '"0","a","dram__bytes_read.sum","byte","1,000"',
    '"0","a","sm__throughput.avg.pct_of_peak_sustained_elapsed","%","70"',
])
rows = compare.parse_ncu_csv(long_form)
assert [r["name"] for r in rows] == ["a", "b"] and rows[0]["dram__bytes_read.sum"] == 1000.0
assert compare.ncu_class(rows[0]) == "compute"

# Aggregate and per-instruction tensor counters of one precision are not added twice.
v = {"sm__ops_path_tensor_src_bf16_dst_fp32.sum": 10.0,
     "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum": 10.0,
     "sm__ops_path_tensor_op_hgmma_src_fp16.sum": 4.0}
assert compare.tensor_flops(v) == 14.0, compare.tensor_flops(v)
print("compare.py parser: ok")
