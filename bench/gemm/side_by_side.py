#!/usr/bin/env python3
"""torch.matmul, torch.matmul under TunableOp and an autotuned Triton GEMM on ktune's GEMM
problems, timed with the protocol of `ktune tune gemm --vs-torch`
(docs/perf/gemm.md#side-by-side-tunableop-and-triton).

  side_by_side.py [--shapes MxNxK,...] [--variants torch,tunableop,triton] [--deadline EPOCH]
                  [--keep DIR] [--no-triton-warm]
  side_by_side.py --print-shapes

One JSON line per (shape, variant) on stdout (schema ktune.gemm_sbs), progress on stderr. Each
variant runs in its own python process, sbs_worker.py (TunableOp reads its environment when
torch loads); this one imports no torch. A variant that cannot run (no torch, no Triton, no
GPU, a crash) gives rows with ok: false and a message, and the others go on. --keep DIR keeps
TunableOp's results file and verbose log.

The problem is ktune's tn MxNxK, bf16 (docs/perf/gemm.md#space): column-major A (k x m, read
transposed), B (k x n), D (m x n). As row-major tensors over the same memory: A is (m, k),
B is (n, k), D is (n, m) = B @ A^T, which is what --vs-torch's script calls (torch.matmul(B,
A.t())) and what the Triton kernel computes (sbs_triton.py: X = B, W = A).

Timing (docs/perf/gemm.md#protocol): inputs k/8, k in -8..8; when one copy of A and B is
smaller than 2 x L2 the weights are rotated over `sets` copies (beyond 2 x L2, at most 64 and
4 GiB, as src/gemm/lt_runner.cpp) launched back to back in a CUDA graph, one sample = graph time
/ sets; otherwise one launch per event pair (replayed from a one-launch graph, so no Python call
sits in the window) after an L2 read sweep outside the events. 3 warm-ups, batches of 8, stop
when the 95 % CI of the median (order statistics) is within +-1 % (>= 16 samples) or at 200."""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

SCHEMA, VERSION = "ktune.gemm_sbs", "1.0.0"
VARIANTS = ("torch", "tunableop", "triton")
# M in {1, 16, 128, 2048, 8192} x Llama-7B projections (N, K), then 8192^3.
DEFAULT_SHAPES = [f"{m}x{n}x{k}" for m in (1, 16, 128, 2048, 8192)
                  for n, k in ((4096, 4096), (11008, 4096), (4096, 11008))] + ["8192x8192x8192"]
HERE = os.path.dirname(os.path.abspath(__file__))


def parse_shape(s):
    """'MxNxK' -> (m, n, k); ValueError saying what is wrong."""
    parts = s.strip().lower().split("x")
    if len(parts) != 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise ValueError(f"shape {s!r}: expected MxNxK with positive integers")
    return tuple(int(p) for p in parts)


def split_shapes(text):
    """Shapes separated by commas and/or whitespace."""
    return [s for s in re.split(r"[,\s]+", text) if s]


def rotation_sets(m, n, k, l2_bytes, elem_bytes=2):
    """Copies of A and B the timed launches rotate over, as ktune's runner chooses them: enough
    to exceed 2 x L2, at most 64, and at most 4 GiB in all; 1 = one launch per L2 sweep."""
    ab = (m * k + k * n) * elem_bytes
    sets = max(1, min(64, (2 * l2_bytes + ab - 1) // ab))
    while sets > 1 and ab * sets > (4 << 30):
        sets -= 1
    return sets


def median_ci(samples):
    """(median, ci_lo, ci_hi): the 95 % CI of the median by order statistics, the same ranks as
    --vs-torch's script."""
    x = sorted(samples)
    n = len(x)
    j = max(0, int(n / 2 - 0.98 * math.sqrt(n)) - 1)
    h = min(n - 1, n - 1 - j)
    return (x[(n - 1) // 2] + x[n // 2]) / 2, x[j], x[h]


def converged(samples, rel=0.01, min_n=16):
    if len(samples) < min_n:
        return False
    med, lo, hi = median_ci(samples)
    return (hi - lo) / 2 <= rel * med


_FINDING = re.compile(r"finding fastest for (\S+)\((.*)\) out of (\d+) candidates")
_FOUND = re.compile(r"found fastest for (\S+)\((.*)\) (\S+)\s*$")
_TUNING = re.compile(r"tuning using .*instance id=(\d+), \S+\((.*)\) (\S+)\s*$")


def parse_tunableop_log(text):
    """TunableOp's verbose log (PYTORCH_TUNABLEOP_VERBOSE >= 2) -> {params_sig: {candidates,
    chosen, timed}}: how many solutions it had for the problem, which it kept, and (level 3)
    which it timed."""
    out = {}
    for line in text.splitlines():
        if m := _FINDING.search(line):
            out.setdefault(m.group(2), {"timed": []})["candidates"] = int(m.group(3))
        elif m := _FOUND.search(line):
            out.setdefault(m.group(2), {"timed": []})["chosen"] = m.group(3)
        elif m := _TUNING.search(line):
            out.setdefault(m.group(2), {"timed": []})["timed"].append(m.group(3))
    return out


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def parse_tunableop_csv(text):
    """TunableOp's results file -> (validators {name: value}, [{op, params, solution, ms}])."""
    validators, results = {}, []
    for line in text.splitlines():
        f = [c.strip() for c in line.split(",")]
        if len(f) < 3:
            continue
        if f[0] == "Validator":
            validators[f[1]] = ",".join(f[2:])
            continue
        ms = number(f[3]) if len(f) > 3 else None
        results.append({"op": f[0], "params": f[1], "solution": f[2], "ms": ms})
    return validators, results


def base_row(shape, variant):
    m, n, k = parse_shape(shape)
    return {"schema": SCHEMA, "version": VERSION, "shape": shape, "m": m, "n": n, "k": k,
            "dtype": "bf16", "layout": "tn", "variant": variant, "ok": False}


def emit(row):
    print(json.dumps(row, sort_keys=True), flush=True)


def log(msg):
    print(f"side_by_side: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- parent (no torch)

def tunableop_env(tmp):
    return {"PYTORCH_TUNABLEOP_ENABLED": "1", "PYTORCH_TUNABLEOP_TUNING": "1",
            "PYTORCH_TUNABLEOP_FILENAME": os.path.join(tmp, "tunableop_results%d.csv"),
            "PYTORCH_TUNABLEOP_VERBOSE": "3",
            "PYTORCH_TUNABLEOP_VERBOSE_FILENAME": os.path.join(tmp, "tunableop_log.txt")}


def run_variant(variant, shapes, deadline, tmp, no_triton_warm, keep=None):
    """Runs one variant's worker, relays its rows, and fills in rows for shapes it did not
    answer (a crash or a kill at the deadline)."""
    vtmp = tempfile.mkdtemp(prefix=variant + "_", dir=tmp)
    env = dict(os.environ)
    if variant == "tunableop":
        env.update(tunableop_env(vtmp))
    else:
        for key in [k for k in env if k.startswith("PYTORCH_TUNABLEOP_")]:
            del env[key]
    cmd = [sys.executable, os.path.join(HERE, "sbs_worker.py"), variant,
           "--shapes", ",".join(shapes), "--tmp", vtmp]
    if deadline:
        cmd += ["--deadline", str(deadline)]
    if no_triton_warm:
        cmd.append("--no-triton-warm")
    answered, t0 = set(), time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env)
    # A worker hung inside one shape must not hold the rows of the variants after it.
    watchdog = threading.Timer(max(1.0, deadline + 90 - time.time()), p.kill) if deadline else None
    if watchdog:
        watchdog.daemon = True
        watchdog.start()
    for line in p.stdout:
        line = line.strip()
        try:
            row = json.loads(line)
        except ValueError:
            if line:
                print(line, file=sys.stderr)
            continue
        answered.add(row.get("shape"))
        emit(row)
    rc = p.wait()
    if watchdog:
        watchdog.cancel()
    for s in shapes:
        if s not in answered:
            row = base_row(s, variant)
            row["message"] = f"{variant} worker ended (rc {rc}) before this shape"
            emit(row)
    if variant == "tunableop":
        for f in sorted(os.listdir(vtmp)):
            if keep and (f.endswith(".csv") or f.endswith(".txt")):
                os.makedirs(keep, exist_ok=True)
                shutil.copy(os.path.join(vtmp, f), os.path.join(keep, f))
            if f.endswith(".csv"):
                with open(os.path.join(vtmp, f)) as fh:
                    validators, results = parse_tunableop_csv(fh.read())
                sol = sorted({r["solution"] for r in results})
                log(f"tunableop {f}: {len(results)} results, solutions {sol}, validators "
                    f"{json.dumps(validators)}")
    log(f"{variant}: rc {rc}, {len(answered)} of {len(shapes)} shapes in "
        f"{time.time() - t0:.1f} s")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shapes", default=",".join(DEFAULT_SHAPES),
                    help="MxNxK list, comma or space separated (ktune's tn, bf16)")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--deadline", type=float, default=0,
                    help="epoch seconds: shapes not started by then are rows with skipped: true")
    ap.add_argument("--no-triton-warm", action="store_true",
                    help="skip Triton's second (warm-cache) tune per shape")
    ap.add_argument("--keep", help="directory for TunableOp's results file and log")
    ap.add_argument("--print-shapes", action="store_true", help="print the default shapes")
    a = ap.parse_args(argv)
    if a.print_shapes:
        print(" ".join(DEFAULT_SHAPES))
        return 0
    try:
        shapes = split_shapes(a.shapes)
        for s in shapes:
            parse_shape(s)
        variants = split_shapes(a.variants)
        bad = [v for v in variants if v not in VARIANTS]
        if bad:
            raise ValueError(f"unknown variant(s) {bad}: choose from {list(VARIANTS)}")
    except ValueError as e:
        print(f"side_by_side: {e}", file=sys.stderr)
        return 2
    tmp = tempfile.mkdtemp(prefix="ktune_sbs_")
    try:
        for v in variants:
            run_variant(v, shapes, a.deadline, tmp, a.no_triton_warm, a.keep)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
