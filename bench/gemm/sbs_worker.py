#!/usr/bin/env python3
"""One variant of bench/gemm/side_by_side.py over its shapes, in this process: torch.matmul
(`torch`), torch.matmul with TunableOp on (`tunableop`; side_by_side.py sets
PYTORCH_TUNABLEOP_* before this process imports torch) or the Triton GEMM of sbs_triton.py
(`triton`). One ktune.gemm_sbs JSON line per shape on stdout; the protocol is in
side_by_side.py's docstring (docs/perf/gemm.md#side-by-side-tunableop-and-triton).

  sbs_worker.py VARIANT --shapes MxNxK,... [--tmp DIR] [--deadline EPOCH] [--no-triton-warm]"""
import argparse
import importlib.util
import math
import os
import sys
import tempfile
import time

import side_by_side as sbs


class Worker:
    """Runs one variant over the shapes in this process; torch (and Triton) imported here."""

    def __init__(self, variant, tmp, triton_warm=True):
        import torch  # noqa: PLC0415 (only workers need torch)
        self.torch, self.variant, self.tmp = torch, variant, tmp
        self.triton_warm = triton_warm
        if not torch.cuda.is_available():
            raise RuntimeError("PyTorch sees no CUDA device")
        props = torch.cuda.get_device_properties(0)
        self.l2 = props.L2_cache_size
        self.env = {"gpu": props.name, "torch": torch.__version__,
                    "bf16_reduced_precision_reduction":
                        torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction}
        # The fp32 reference must be fp32 (inputs k/8: exact, see check()).
        torch.backends.cuda.matmul.allow_tf32 = False
        self.tunable = getattr(torch.cuda, "tunable", None)
        if variant == "tunableop":
            if self.tunable is None or not self.tunable.is_enabled():
                raise RuntimeError("TunableOp is not enabled in this torch "
                                   "(PYTORCH_TUNABLEOP_ENABLED=1 set before import)")
            t = self.tunable
            for name in ("max_tuning_duration", "max_tuning_iterations", "rotating_buffer_size"):
                getter = getattr(t, "get_" + name, None)
                if getter:
                    self.env["tunableop_" + name] = getter()
            self.log_path = os.environ.get("PYTORCH_TUNABLEOP_VERBOSE_FILENAME", "")
        if variant == "triton":
            import triton  # noqa: PLC0415
            self.triton = triton
            self.env["triton"] = triton.__version__
            self.n_imports = 0
            if hasattr(triton, "set_allocator"):
                # Kernels that ask for global scratch get it from torch's allocator (and from
                # the graph's pool inside a capture).
                triton.set_allocator(
                    lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
        # cuBLAS handle and workspace created outside any shape's first call (with TunableOp on,
        # this tiny GEMM is tuned too, before any timed tune).
        a = torch.ones((64, 64), device="cuda", dtype=torch.bfloat16)
        (a @ a.t()).sum().item()

    def mat(self, rows, cols):
        t = self.torch
        return (t.randint(-8, 9, (rows, cols), device="cuda").float() / 8).to(t.bfloat16)

    def check(self, y, a, b, k):
        """Worst |error| and worst |error| / tolerance of y (n x m) against the fp32 product,
        with ktune's K-aware tolerance (src/gemm/reference.cpp, bf16): inputs k/8 make every
        product exact and every fp32 partial sum exact, so only D's rounding and reductions
        done in lower precision can differ."""
        t = self.torch
        af, bf = a.float(), b.float()
        ref = bf @ af.t()
        abs_sum = bf.abs() @ af.abs().t()
        ulp = 2.0 ** -7
        tol = (2 * ulp * ref.abs() + ulp * abs_sum / math.sqrt(k)
               + 4 * math.sqrt(k) * 2.0 ** -23 * abs_sum + 1e-6)
        err = (y.float() - ref).abs()
        bad = t.isnan(y).any().item()
        return (float("inf") if bad else err.max().item(),
                float("inf") if bad else (err / tol).max().item())

    def time_cold(self, run, sets):
        """Median and CI (us per GEMM) with the rotation/graph or L2-sweep protocol."""
        t = self.torch
        s = t.cuda.Stream()
        s.wait_stream(t.cuda.current_stream())
        scratch = t.empty(2 * self.l2 // 4 + 1, device="cuda", dtype=t.float32)
        mode = "graph" if sets > 1 else "graph_l2_sweep"
        with t.cuda.stream(s):
            for i in range(sets):
                run(i)
            s.synchronize()
            g = t.cuda.CUDAGraph()
            try:
                with t.cuda.graph(g, stream=s):
                    for i in range(sets):
                        run(i)
                replay = g.replay
            except Exception as e:  # noqa: BLE001 (not capturable: back-to-back launches)
                sbs.log(f"{self.variant}: graph capture failed ({e}); launching back to back")
                mode = "direct" if sets > 1 else "direct_l2_sweep"

                def replay():
                    for i in range(sets):
                        run(i)
            for _ in range(3):
                replay()
            samples = []
            while len(samples) < 200:
                ev = []
                for _ in range(8):
                    if sets == 1:
                        scratch.sum()
                    e0 = t.cuda.Event(enable_timing=True)
                    e1 = t.cuda.Event(enable_timing=True)
                    e0.record(s)
                    replay()
                    e1.record(s)
                    ev.append((e0, e1))
                s.synchronize()
                samples += [1000.0 * a.elapsed_time(b) / sets for a, b in ev]
                if sbs.converged(samples):
                    break
        med, lo, hi = sbs.median_ci(samples)
        return {"median_us": med, "ci_us": [lo, hi], "samples": len(samples), "timing": mode}

    def first_call(self, fn):
        t = self.torch
        t.cuda.synchronize()
        t0 = time.perf_counter()
        y = fn()
        t.cuda.synchronize()
        return y, time.perf_counter() - t0

    def shape(self, row):
        t = self.torch
        m, n, k = row["m"], row["n"], row["k"]
        sets = sbs.rotation_sets(m, n, k, self.l2)
        a_s = [self.mat(m, k) for _ in range(sets)]
        b_s = [self.mat(n, k) for _ in range(sets)]
        t.cuda.synchronize()
        row["rotation_sets"] = sets
        if self.variant == "triton":
            run = self.triton_shape(row, a_s, b_s)
        else:
            def run(i):
                return t.matmul(b_s[i], a_s[i].t())
            before = set()
            if self.variant == "tunableop":
                before = self.tunable_results()
                self.tunable.tuning_enable(True)
            y, first_s = self.first_call(lambda: run(0))
            row["first_call_s"] = first_s
            if self.variant == "tunableop":
                # Tuned on this first call; no tuning may start inside the graph capture.
                self.tunable.tuning_enable(False)
                row["tune_s"] = first_s
                try:
                    self.tunableop_record(row, before)
                except Exception as e:  # noqa: BLE001 (the timing still counts)
                    row["tunableop_error"] = f"{type(e).__name__}: {e}"[:300]
            row["max_abs_err"], row["max_err_ratio"] = self.check(y, a_s[0], b_s[0], k)
        row.update(self.time_cold(run, sets))
        row["tflops"] = 2.0 * m * n * k / row["median_us"] * 1e-6
        # Timed is ok; a result outside ktune's tolerance is reported beside the time.
        row["ok"] = True
        row["check_ok"] = row["max_err_ratio"] <= 1.0

    def tunable_results(self):
        return {tuple(str(x) for x in r) for r in self.tunable.get_results()}

    def tunableop_record(self, row, before):
        # This problem's entries: those its first call added (the rotation's copies share one).
        mine = sorted(r for r in self.tunable_results() - before if len(r) > 2)
        row["tunableop_results"] = [{"op": str(r[0]), "params": str(r[1]), "solution": str(r[2]),
                                     "ms": sbs.number(r[3]) if len(r) > 3 else None} for r in mine]
        row["tunableop_solution"] = str(mine[-1][2]) if mine else None
        text = ""
        if self.log_path and os.path.exists(self.log_path):
            with open(self.log_path, errors="replace") as f:
                text = f.read()
        found = sbs.parse_tunableop_log(text)
        seen = [found[str(r[1])] for r in mine if str(r[1]) in found]
        row["tunableop_candidates"] = max((s.get("candidates", 0) for s in seen), default=None)
        row["tunableop_timed"] = sorted({x for s in seen for x in s["timed"]})

    def triton_module(self, cache_dir):
        """sbs_triton.py imported afresh (a new JITFunction and autotuner) with its compiles
        going to cache_dir."""
        os.environ["TRITON_CACHE_DIR"] = cache_dir
        knobs = getattr(self.triton, "knobs", None)
        if knobs is not None and hasattr(knobs, "cache"):
            try:
                knobs.cache.dir = cache_dir
            except Exception:  # noqa: BLE001 (older knobs: the environment is read instead)
                pass
        self.n_imports += 1
        spec = importlib.util.spec_from_file_location(f"sbs_triton_{self.n_imports}",
                                                      os.path.join(sbs.HERE, "sbs_triton.py"))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod

    def triton_shape(self, row, a_s, b_s):
        t = self.torch
        m, n, k = row["m"], row["n"], row["k"]
        y = t.empty((n, m), device="cuda", dtype=t.bfloat16)
        cache = tempfile.mkdtemp(prefix="triton_", dir=self.tmp)
        mod = self.triton_module(cache)
        # Cold: compiles into an empty cache and times the shape's configs.
        _, row["tune_s"] = self.first_call(lambda: mod.launch(b_s[0], a_s[0], y))
        row["first_call_s"] = row["tune_s"]
        row["triton_config"] = mod.best_config()
        row["triton_configs"] = len(mod.config_set(m))
        row["triton_configs_timed"] = mod.timed_configs()
        row["triton_cache_files"] = sum(len(f) for _, _, f in os.walk(cache))
        row["max_abs_err"], row["max_err_ratio"] = self.check(y, a_s[0], b_s[0], k)
        if self.triton_warm:
            # Warm: a fresh autotuner over the now-filled cache (a second process's tune).
            warm = self.triton_module(cache)
            _, row["retune_warm_s"] = self.first_call(lambda: warm.launch(b_s[0], a_s[0], y))
            if warm.best_config() != row["triton_config"]:
                row["retune_config"] = warm.best_config()
        return lambda i: mod.launch(b_s[i], a_s[i], y)

    def run(self, shapes, deadline):
        for s in shapes:
            row = sbs.base_row(s, self.variant)
            row.update(self.env)
            if deadline and time.time() > deadline:
                row.update(skipped=True, message="not run: deadline")
                sbs.emit(row)
                continue
            sbs.log(f"{self.variant} {s}")
            try:
                self.shape(row)
            except Exception as e:  # noqa: BLE001 (a failing shape is a row; the rest go on)
                row.update(ok=False, message=f"{type(e).__name__}: {e}"[:500])
            sbs.emit(row)
            try:
                self.torch.cuda.synchronize()
                self.torch.cuda.empty_cache()
            except Exception as e:  # noqa: BLE001 (a sticky CUDA error: the parent fills in)
                sbs.log(f"{self.variant}: the GPU is unusable after {s} ({e}); stopping")
                return


def main(argv=None):
    ap = argparse.ArgumentParser(description="one variant of side_by_side.py (run by it)")
    ap.add_argument("variant", choices=sbs.VARIANTS)
    ap.add_argument("--shapes", required=True)
    ap.add_argument("--tmp", default=tempfile.gettempdir())
    ap.add_argument("--deadline", type=float, default=0)
    ap.add_argument("--no-triton-warm", action="store_true")
    a = ap.parse_args(argv)
    a.worker = a.variant
    shapes = sbs.split_shapes(a.shapes)
    try:
        w = Worker(a.worker, a.tmp, triton_warm=not a.no_triton_warm)
    except Exception as e:  # noqa: BLE001 (no torch/Triton/GPU: every row says why)
        for s in shapes:
            row = sbs.base_row(s, a.worker)
            row["message"] = f"{a.worker} unavailable: {type(e).__name__}: {e}"[:500]
            sbs.emit(row)
        return 0
    w.run(shapes, a.deadline)
    # torch 2.11's torch.cuda.tunable has no write_file (its results file is written at exit).
    if a.worker == "tunableop" and hasattr(w.tunable, "write_file"):
        try:
            w.tunable.write_file()
        except Exception as e:  # noqa: BLE001
            sbs.log(f"tunableop: write_file failed: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
