#!/usr/bin/env python3
"""CPU test of unaligned_table.py on synthetic `ktune tune gemm --json` reports."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def report(d, default_us, winner_us, shape, padded=None):
    """padded: the padded-K form's median (the winner's form when it is the winner's time)."""
    path = os.path.join(d, "r_%s.json" % shape)
    winner = {"median_us": winner_us, "algo": {"algo": 6}}
    evaluated = [{"algo": {"algo": 6}, "status": "ok", "median_us": default_us}]
    if padded is not None:
        evaluated += [{"algo": {"algo": 6, "pad_k": 1}, "status": "ok", "median_us": padded},
                      {"algo": {"algo": 7, "pad_k": 1}, "status": "wrong_result"}]
        if padded == winner_us:
            winner["algo"]["pad_k"] = 1
    with open(path, "w") as f:
        json.dump({"default": {"median_us": default_us}, "winner": winner,
                   "evaluated": evaluated}, f)
    return path


def main():
    with tempfile.TemporaryDirectory() as d:
        paths = [report(d, 100.0, 100.0, "2048x4096x4096"),   # the baseline
                 report(d, 125.0, 101.0, "2048x4097x4096"),   # cuBLAS drops to 0.8x
                 report(d, 500.0, 125.0, "2048x4096x4097", padded=125.0),  # padded wins 4x
                 report(d, 100.5, 100.0, "2048x4104x4096"),   # holds (more FLOPs, same time)
                 os.path.join(d, "r_2048x4093x4093.json")]    # a tune that wrote nothing
        open(paths[-1], "w").close()
        out = subprocess.run([sys.executable, os.path.join(HERE, "unaligned_table.py")] + paths,
                             check=True, capture_output=True, text=True).stdout
    assert "| 2048x4096x4096 | 0, 0 | 100.00 | 687.2 | 1.000 | 100.00 | 1.000 | own | - |" in out, out
    assert "| 2048x4097x4096 | 1, 0 | 125.00 | 549.9 | 0.800 | 101.00 | 1.238 | own | - |" in out, out
    assert ("| 2048x4096x4097 | 0, 1 | 500.00 | 137.5 | 0.200 | 125.00 | 4.000 | padded | 125.00 |"
            in out), out
    assert ("under 0.9x of its aligned throughput: 2: 2048x4096x4097 (0.20), 2048x4097x4096 (0.80)"
            in out), out
    assert "over cuBLAS's default: 2048x4096x4097 4.00x, 2048x4097x4096 1.24x" in out, out
    assert "| 2048x4093x4093 | 61, 61 |" in out, out
    print("unaligned_table: ok")


if __name__ == "__main__":
    main()
