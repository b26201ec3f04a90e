#!/usr/bin/env python3
"""CPU test of sm90_tune_table.py on a synthetic `ktune tune gemm --json` report and of
sm90_search.py's composition of the prior's picks with a strategy's runs."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import sm90_search  # noqa: E402


def main():
    # The picks first: a good pick ends the count at its place; none good adds them all.
    assert sm90_search.composed([True, False], [50, 70]) == [1, 1]
    assert sm90_search.composed([False, True], [50, 70]) == [2, 2]
    assert sm90_search.composed([False, False], [50, 70]) == [52, 72]
    assert sm90_search.composed([], [5]) == [5]

    sm90 = {"provider": "ktune_sm90", "bn": 256, "stages": 3, "consumers": 2, "group": 8,
            "cluster": 1, "epi_parts": 0, "tma_store": 1}
    lt = {"algo": 66, "tile": 24}
    doc = {"schema": "ktune.tune.gemm", "problem": {"m": 4096, "n": 4096, "k": 4096},
           "default": {"median_us": 160.0, "algo": lt},
           "winner": {"median_us": 160.0, "algo": lt}, "tune_seconds": 6.5,
           "evaluated": [{"algo": lt, "status": "ok", "median_us": 160.0},
                         {"algo": dict(lt, tile=20), "status": "ok", "median_us": 158.0},
                         {"algo": sm90, "status": "ok", "median_us": 164.6},
                         {"algo": dict(sm90, bn=64), "status": "wrong_result"}]}
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "gemm_sm90_tune_4096.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        cache = os.path.join(d, "gemm_sm90_tune_cache.json")
        with open(cache, "w") as f:
            json.dump({"schema": "ktune.cache", "entries": []}, f)  # a glob catches it: skipped
        out = subprocess.run([sys.executable, os.path.join(HERE, "sm90_tune_table.py"), path,
                              cache], check=True, capture_output=True, text=True).stdout
        # As % of the copy roof (decode shapes): 2 (4096^2 * 3) bytes in 160 us at 3000 GB/s.
        dev = os.path.join(d, "device.json")
        with open(dev, "w") as f:
            json.dump({"schema": "ktune.device_measure", "measured_peaks": {"dram_gbs": 3000.0}}, f)
        split = dict(doc, evaluated=doc["evaluated"] + [
            {"algo": dict(sm90, bn=8, tma_store=0, splits=4), "status": "ok", "median_us": 150.0}])
        with open(path, "w") as f:
            json.dump(split, f)
        pct = subprocess.run([sys.executable, os.path.join(HERE, "sm90_tune_table.py"), "--copy",
                              dev, path], check=True, capture_output=True, text=True).stdout
        # fp8 inputs: A and B 1 byte an element, D bf16: (4096^2 * 2 + 2 * 4096^2) bytes in 160 us.
        fp8 = dict(split, problem={"m": 4096, "n": 4096, "k": 4096, "dtype": "fp8",
                                   "epilogue": "gelu_bias"})
        with open(path, "w") as f:
            json.dump(fp8, f)
        pct8 = subprocess.run([sys.executable, os.path.join(HERE, "sm90_tune_table.py"), "--copy",
                               dev, path], check=True, capture_output=True, text=True).stdout
        assert "| 4096x4096x4096 fp8 gelu_bias | 160.00 (14.0 %) |" in pct8, pct8
        # fp8 at M = 1: cuBLASLt does not run it; the default is the template's first pick.
        small = dict(doc, problem={"m": 1, "n": 4096, "k": 4096, "dtype": "fp8"},
                     default={"median_us": 8.0, "algo": sm90},
                     evaluated=[{"algo": sm90, "status": "ok", "median_us": 8.0},
                                {"algo": dict(sm90, bn=8), "status": "ok", "median_us": 7.5}])
        with open(path, "w") as f:
            json.dump(small, f)
        pct1 = subprocess.run([sys.executable, os.path.join(HERE, "sm90_tune_table.py"), "--copy",
                               dev, path], check=True, capture_output=True, text=True).stdout
        assert "| 1x4096x4096 fp8 | 8.00 (template) (" in pct1, pct1
        assert "| — (nan %) | 7.50 (" in pct1, pct1
        assert "| 1.067 | nan |" in pct1, pct1
        # Tuned with --b-operand weights: the row says so.
        with open(path, "w") as f:
            json.dump(dict(small, b_operand="weights"), f)
        pctw = subprocess.run([sys.executable, os.path.join(HERE, "sm90_tune_table.py"), "--copy",
                               dev, path], check=True, capture_output=True, text=True).stdout
        assert "| 1x4096x4096 fp8 (B weights) | 8.00 (template) (" in pctw, pctw
        # A swapped template config is named so (docs/perf/gemm.md#swap-ab).
        swapped = dict(small, evaluated=[{"algo": dict(sm90, bn=88, tma_store=0, swap_ab=1),
                                          "status": "ok", "median_us": 7.0}])
        with open(path, "w") as f:
            json.dump(swapped, f)
        pcts = subprocess.run([sys.executable, os.path.join(HERE, "sm90_tune_table.py"), "--copy",
                               dev, path], check=True, capture_output=True, text=True).stdout
        assert "sm90 bn88 s3 c2 g8 x1 e0 t0 ab |" in pcts, pcts
        # The fault table: planted candidates, rejected or not, and a planted winner.
        faulty = dict(doc, evaluated=doc["evaluated"] + [
            {"algo": dict(sm90, bn=128), "status": "wrong_result", "injected_fault": "skip_slab"},
            {"algo": dict(sm90, bn=192), "status": "ok", "median_us": 150.0,
             "injected_fault": "drop_tile"}],
            winner={"median_us": 150.0, "algo": dict(sm90, bn=192), "injected_fault": "drop_tile"})
        fpath = os.path.join(d, "f_4096.json")
        with open(fpath, "w") as f:
            json.dump(faulty, f)
        ftab = subprocess.run([sys.executable, os.path.join(HERE, "sm90_faults_table.py"), fpath],
                              check=True, capture_output=True, text=True).stdout
    prow = [r for r in pct.splitlines() if r.startswith("| 4096")]
    assert len(prow) == 1, pct
    assert "| 160.00 (21.0 %) |" in prow[0], prow[0]
    assert "| 150.00 (22.4 %) |" in prow[0], prow[0]
    assert "sm90 bn8 s3 c2 g8 x1 e0 t0 k4" in prow[0], prow[0]
    assert "| 1.067 | 1.053 |" in prow[0], prow[0]
    assert "| f_4096.json | 4 | 2 (drop_tile 1, skip_slab 1) | 1 | 1 | yes |" in ftab, ftab
    assert "1 tunes: 2 faults planted in 4 template candidates, 1 rejected, 1 passed the check, " \
        "1 wrong winners" in ftab, ftab
    rows = [r for r in out.splitlines() if r.startswith("| 4096")]
    assert len(rows) == 1, out
    row = rows[0]
    # The best of each provider, their ratio (158 / 164.6), the template configs measured.
    assert "| 158.0 |" in row, row
    assert "164.6 (sm90 bn256 s3 c2 g8 x1 e0 t1)" in row, row
    assert "| 0.960 |" in row, row
    assert "| 2 of 4 |" in row, row
    check_sass_hot()
    print("ok")


def check_sass_hot():
    """sass_hot.py on ncu's two CSV pages as ncu 2025 writes them (a kernel-name line, then the
    source table; raw: names, units, one row a kernel), shortened to a few columns."""
    source = ['"Kernel Name","ktune_sm90_gemm",',
              '"Address","Source","Warp Stall Sampling (All Samples)",'
              '"Warp Stall Sampling (Not-issued Samples)","Instructions Executed",'
              '"stall_long_sb","stall_wait"',
              '"0x10","HGMMA.64x32x16.F32.BF16 R24, gdesc[UR8], R24","10","8","32768","0","10"',
              '"0x20","@!P0 BRA 0x7f00","60","58","32768","60","0"',
              '"0x30","UTMALDG.2D [UR8], [UR12]","30","20","8192","5","25"']
    raw = ['"ID","Kernel Name","gpu__time_duration.sum","smsp__inst_executed.sum",'
           '"smsp__pcsamp_warps_issue_stalled_long_scoreboard",'
           '"smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued",'
           '"smsp__pcsamp_warps_issue_stalled_wait"',
           '"","","us","inst","","",""',
           '"0","ktune_sm90_gemm","14.18","1,905,408","300","290","100"']
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for name, lines in (("s.csv", source), ("r.csv", raw)):
            paths.append(os.path.join(d, name))
            with open(paths[-1], "w") as f:
                f.write("\n".join(lines) + "\n")
        out = subprocess.run([sys.executable, os.path.join(HERE, "sass_hot.py")] + paths + ["2"],
                             check=True, capture_output=True, text=True).stdout
    lines = out.splitlines()
    assert lines[0] == "3 SASS lines, 100 samples", out
    # Lines run as often share a loop: the consumers' (32768x) hold 70 % of the samples.
    assert "32768x 70.0 %, 8192x 30.0 %" in lines[1], out
    # The two hottest lines, hottest first, with their largest stall reasons.
    assert lines[2].startswith(" 60.0 % @!P0 BRA 0x7f00"), out
    assert "stall_long_sb 60" in lines[2], out
    assert lines[3].startswith(" 30.0 % UTMALDG.2D") and "stall_wait 25, stall_long_sb 5" in lines[3]
    assert "  gpu__time_duration.sum = 14.18 us" in lines, out
    assert "  long_scoreboard 75.0 %" in lines and "  wait 25.0 %" in lines, out


if __name__ == "__main__":
    main()
