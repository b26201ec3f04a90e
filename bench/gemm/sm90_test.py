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
    rows = [r for r in out.splitlines() if r.startswith("| 4096")]
    assert len(rows) == 1, out
    row = rows[0]
    # The best of each provider, their ratio (158 / 164.6), the template configs measured.
    assert "| 158.0 |" in row, row
    assert "164.6 (sm90 bn256 s3 c2 g8 x1 e0 t1)" in row, row
    assert "| 0.960 |" in row, row
    assert "| 2 of 4 |" in row, row
    print("ok")


if __name__ == "__main__":
    main()
