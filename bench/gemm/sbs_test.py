#!/usr/bin/env python3
"""side_by_side.py's CPU parts and sbs_table.py on synthetic results (run by ctest:
gemm_sbs_py; no torch needed). The GPU parts run in step gemm_sbs
(docs/perf/gemm.md#side-by-side-tunableop-and-triton)."""
import contextlib
import importlib.util
import io
import json
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import sbs_table  # noqa: E402
import side_by_side as sbs  # noqa: E402

# Shapes: MxNxK only; lists split on commas and whitespace.
assert sbs.parse_shape("16x4096x11008") == (16, 4096, 11008)
for bad in ("16x4096", "0x1x1", "ax1x1", "1x2x3x4"):
    try:
        sbs.parse_shape(bad)
        raise AssertionError(bad)
    except ValueError:
        pass
assert sbs.split_shapes("1x2x3, 4x5x6\n7x8x9") == ["1x2x3", "4x5x6", "7x8x9"]
assert len(sbs.DEFAULT_SHAPES) == 16 and sbs.DEFAULT_SHAPES[-1] == "8192x8192x8192"

# Rotation sets as src/gemm/lt_runner.cpp on an H100 (50 MiB L2): copies beyond 2 x L2,
# capped at 64, one copy (L2 sweep) when A + B alone exceed 2 x L2.
l2 = 50 << 20
assert sbs.rotation_sets(1, 4096, 4096, l2) == 4  # 32 MiB per copy
assert sbs.rotation_sets(2048, 4096, 4096, l2) == 3  # 48 MiB
assert sbs.rotation_sets(8192, 4096, 4096, l2) == 2  # 96 MiB < 100 MiB
assert sbs.rotation_sets(8192, 11008, 4096, l2) == 1
assert sbs.rotation_sets(8192, 8192, 8192, l2) == 1
assert sbs.rotation_sets(1, 64, 64, l2) == 64
assert sbs.rotation_sets(1, (1 << 20) - 8, 1024, 8 << 30) == 2  # 4 GiB cap, ~2 GiB a copy

# The CI of the median by order statistics, the stopping rule (>= 16 samples, +-1 %).
med, lo, hi = sbs.median_ci([float(x) for x in range(1, 101)])
assert med == 50.5 and lo == 40.0 and hi == 61.0, (med, lo, hi)
assert sbs.median_ci([3.0]) == (3.0, 3.0, 3.0)
assert not sbs.converged([10.0] * 15) and sbs.converged([10.0] * 16)
assert not sbs.converged([10.0 + (i % 2) for i in range(100)])

# TunableOp's verbose log and results file (the line forms of torch's TunableOp.h).
log = "\n".join([
    "reading tuning results from /tmp/x.csv",
    "finding fastest for GemmTunableOp_BFloat16_TN(tn_1_4096_4096_ld_4096_4096_1) out of 1 candidates",
    "├──tuning using warmup iters 0 [0 ms] and tuning iters 100 [1.2 ms] instance id=0, "
    "GemmTunableOp_BFloat16_TN(tn_1_4096_4096_ld_4096_4096_1) Default",
    "└──found fastest for GemmTunableOp_BFloat16_TN(tn_1_4096_4096_ld_4096_4096_1) Default",
    "finding fastest for GemmTunableOp_BFloat16_TN(tn_16_4096_4096_ld_4096_4096_16) out of 3 candidates",
    "└──found fastest for GemmTunableOp_BFloat16_TN(tn_16_4096_4096_ld_4096_4096_16) Gemm_Lt_7",
])
got = sbs.parse_tunableop_log(log)
assert got["tn_1_4096_4096_ld_4096_4096_1"] == {"candidates": 1, "chosen": "Default",
                                                "timed": ["Default"]}, got
assert got["tn_16_4096_4096_ld_4096_4096_16"]["candidates"] == 3
assert got["tn_16_4096_4096_ld_4096_4096_16"]["chosen"] == "Gemm_Lt_7"
validators, results = sbs.parse_tunableop_csv(
    "Validator,PT_VERSION,2.11.0\nValidator,CUBLASLT_VERSION,130100\n"
    "GemmTunableOp_BFloat16_TN,tn_1_4096_4096_ld_4096_4096_1,Default,0.0136\n"
    "GemmTunableOp_BFloat16_TN,tn_2_4096_4096_ld_4096_4096_2,Default,n/a\n")
assert validators == {"PT_VERSION": "2.11.0", "CUBLASLT_VERSION": "130100"}
assert [r["solution"] for r in results] == ["Default", "Default"]
assert results[0]["ms"] == 0.0136 and results[1]["ms"] is None

# Rows carry the problem; usage errors exit 2; without torch every row says why (exit 0).
row = sbs.base_row("16x4096x4096", "triton")
assert (row["m"], row["n"], row["k"], row["layout"], row["ok"]) == (16, 4096, 4096, "tn", False)
with contextlib.redirect_stderr(io.StringIO()) as err:
    assert sbs.main(["--shapes", "1x2"]) == 2 and sbs.main(["--variants", "cublas"]) == 2
assert "expected MxNxK" in err.getvalue() and "unknown variant" in err.getvalue()
if importlib.util.find_spec("torch") is None:
    p = subprocess.run([sys.executable, os.path.join(here, "side_by_side.py"), "--shapes",
                        "1x64x64", "--variants", "torch,triton"], capture_output=True, text=True,
                       timeout=120)
    rows = [json.loads(x) for x in p.stdout.splitlines()]
    assert p.returncode == 0 and [r["variant"] for r in rows] == ["torch", "triton"], p
    assert all(not r["ok"] and "unavailable" in r["message"] for r in rows), rows


# sbs_table: synthetic results of two shapes, one variant missing, one check failed.
def cand(med, lo, hi, status="ok"):
    return {"status": status, "median_us": med, "ci_us": [lo, hi]}


def tune_doc(m, n, k, default, winner, tune_s):
    return {"schema": "ktune.tune.gemm", "version": "1.0.0",
            "problem": {"m": m, "n": n, "k": k, "dtype": "bf16", "layout": "tn",
                        "epilogue": "none"},
            "default": default, "winner": winner, "tune_seconds": tune_s,
            "replaces_default": winner != default}


def sbs_row(shape, variant, med, lo, hi, **kw):
    r = sbs.base_row(shape, variant)
    r.update(ok=True, median_us=med, ci_us=[lo, hi], gpu="NVIDIA H100 80GB HBM3",
             torch="2.11.0", check_ok=True)
    r.update(kw)
    return r


with tempfile.TemporaryDirectory() as tmp:
    one = os.path.join(tmp, "gemm_sbs_ktune_1x4096x4096.json")
    json.dump(tune_doc(1, 4096, 4096, cand(16.1, 15.9, 16.2), cand(16.1, 15.9, 16.2), 0.68),
              open(one, "w"))
    plan = os.path.join(tmp, "plan.json")
    json.dump({"schema": "ktune.tune.gemm_plan", "version": "1.0.0", "tunes": [
        tune_doc(8192, 8192, 8192, cand(1300, 1290, 1310), cand(1250, 1240, 1260), 4.0),
        dict(tune_doc(16, 4096, 4096, cand(16, 15, 17), cand(16, 15, 17), 1.0),
             problem={"m": 16, "n": 4096, "k": 4096, "dtype": "fp8", "layout": "tn"})]},
              open(plan, "w"))
    walls = os.path.join(tmp, "walls.jsonl")
    with open(walls, "w") as f:
        for s, w in (("1x4096x4096", 1.9), ("8192x8192x8192", 6.5)):
            f.write(json.dumps({"schema": "ktune.gemm_sbs_wall", "shape": s, "wall_s": w,
                                "rc": 0}) + "\n")
    rows = os.path.join(tmp, "gemm_sbs.jsonl")
    with open(rows, "w") as f:
        for r in (
                sbs_row("1x4096x4096", "torch", 16.05, 15.95, 16.18),
                sbs_row("1x4096x4096", "tunableop", 16.5, 16.3, 16.6, tune_s=0.21,
                        tunableop_solution="Default", tunableop_candidates=1),
                sbs_row("1x4096x4096", "triton", 32.2, 32.0, 32.4, tune_s=5.5,
                        retune_warm_s=1.2, max_err_ratio=0.0),
                sbs_row("8192x8192x8192", "torch", 1229, 1227, 1231),
                sbs_row("8192x8192x8192", "triton", 1800, 1790, 1810, tune_s=9.0,
                        max_err_ratio=2.5, check_ok=False),
                dict(sbs.base_row("8192x8192x8192", "tunableop"), message="not run: deadline",
                     skipped=True)):
            f.write(json.dumps(r) + "\nnot json\n")
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert sbs_table.main([one, plan, walls, rows, os.path.join(tmp, "absent.json")]) == 0
    text = buf.getvalue()
    if os.environ.get("SBS_TEST_SHOW"):
        print(text)
    lines = text.splitlines()
    head = [x for x in lines if x.startswith("| shape")]
    assert len(head) == 1 and head[0].count("|") == 15, head
    r1 = next(x for x in lines if x.startswith("| 1x4096x4096 "))
    cells = [c.strip() for c in r1.strip("|").split("|")]
    assert cells[1:6] == ["16.10", "16.10", "16.05", "16.50", "32.20"], cells
    assert cells[6:9] == ["0.68 (1.90)", "0.21", "5.50 (1.20)"], cells
    # torch's CI overlaps ktune's (a tie); TunableOp's and Triton's lie above it.
    assert cells[9:12] == ["≈0.997", "1.025", "2.000"], cells
    assert cells[12:14] == ["Default (1)", "0"], cells
    r2 = next(x for x in lines if x.startswith("| 8192x8192x8192 "))
    cells = [c.strip() for c in r2.strip("|").split("|")]
    assert cells[1:6] == ["1300.00", "1250.00", "1229.00", "—", "1800.00"], cells
    assert cells[9:12] == ["0.983", "—", "1.440"] and cells[13] == "2.5 FAIL", cells
    assert not any(x.startswith("| 16x4096x4096") for x in lines), "fp8 kept out"
    assert "- torch.matmul / ktune over 2 shapes: geomean 0.990" in text, text
    assert "faster 1 (8192x8192x8192)" in text, text
    assert "- outside ktune's tolerance: 8192x8192x8192 triton" in text, text
    assert "- not timed: 8192x8192x8192 tunableop: not run: deadline" in text, text
    assert "- TunableOp picks: {'Default': 1}" in text, text
    assert "absent.json" in text and "gpu NVIDIA H100 80GB HBM3" in text, text

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert sbs_table.main([os.path.join(tmp, "absent.json")]) == 0
    assert buf.getvalue().startswith("no results"), buf.getvalue()
print("sbs_test: ok")
