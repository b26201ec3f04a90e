#!/usr/bin/env python3
"""Tune one of examples/kernels/ with Kernel Tuner (CuPy backend), from the same ktune.kernel spec.

    python3 bench/kernel/kernel_tuner_compare.py --kernel matmul --problem M=1024,N=1024,K=1024 \
        --strategies random_sample,genetic_algorithm,dual_annealing,greedy_ils,bayes_opt \
        --max-fevals 200 --time-limit 120 --repeat 1 --out kt.jsonl
    python3 bench/kernel/kernel_tuner_compare.py --kernel matmul --dry-run   # no GPU: the KT call
    python3 bench/kernel/kernel_tuner_compare.py --kernel stencil --simulate brute_stencil.json \
        --out kt.jsonl   # no GPU: Kernel Tuner's simulation mode on a recorded space

The comparison is only fair if Kernel Tuner searches exactly the space ktune searches and launches
exactly the kernels ktune launches, so the spec is translated, not re-declared:

- tune_params: the spec's parameters and values, in the spec's order.
- restrictions: one callable of the config dict (Kernel Tuner's "monolithic" form) that evaluates
  the spec's restriction expressions with ktune's semantics (integer arithmetic, C division and
  remainder, && || ! ?:, ceil_div/min/max; names: parameters, dimensions and ktune's device limits
  of the arch, kernel::device_limits::for_arch), then ktune's launch-limit check (block and grid
  dims, threads per block, shared bytes). A config whose expressions fail to evaluate is invalid,
  as in ktune. `--dry-run` prints the count, to check against `ktune kernel check --json`.
- grid: problem_size is a callable returning the spec's grid expressions and grid_div_x/y/z are
  empty lists (Kernel Tuner's documented way to launch a grid that is not problem/block).
- block: block_size_names when every block entry is a parameter name (or 1). Kernel Tuner has no
  way to launch a block that is an expression of parameters (matmul: TILE_N / WPT_N); for those,
  kernel_tuner.util.get_thread_block_dimensions is replaced, while the tune runs, by the spec's
  block expressions. Adding derived block_size_x parameters instead would change the space.
- dynamic shared memory: smem_args with the spec's shared_bytes expression. Kernel Tuner's CuPy
  backend never opts in to more than 48 KiB of dynamic shared memory (such a launch fails with
  "invalid argument", which aborts the whole tune); ktune does (cuFuncSetAttribute), so the backend's
  copy_shared_memory_args also sets the kernel's max_dynamic_shared_size_bytes.
- source, name, macros: the spec's sources joined with #line markers; the kernel name with its
  template arguments (CuPy instantiates templates through RawModule name_expressions, Kernel Tuner
  substitutes parameter values into the name); `defines` passed explicitly, so that Kernel Tuner
  does not #define every parameter (that would rewrite `template <int TILE_M>` into
  `template <int 32>`); NVRTC options as ktune's compile (--std=c++17; --no-cache from NVRTC 12.9,
  which would otherwise also cache through the driver's compute cache), plus the spec's own.
- arguments: numpy arrays of the spec's sizes, dtypes and generators (uniform in [-1, 1), normal,
  ones, zeros, iota; bf16 and fp8 as raw uint16/uint8 bits), scalars as np.int32/np.int64.
  Kernel Tuner never resets a buffer that is both input and output between launches (reduction's
  `out` accumulates): that changes the result, not the time. Output verification is skipped
  (no `answer`): ktune's correctness gate is its own cost, so Kernel Tuner is not charged one.
- compile cache: CUPY_CACHE_DIR is a fresh directory for each tune, so every tune compiles its
  candidates as ktune does with a cold cubin cache.
- seed: Kernel Tuner's strategies draw from Python's `random` and numpy's global generator (its
  `seed` argument reaches only the pymoo strategies), so both are seeded before each tune with
  seed + repeat; `seed` is passed as well.

Time per evaluation: Kernel Tuner's sequential runner stamps each result dict with "timestamp"
(datetime.now(timezone.utc), taken right after the config was compiled and benchmarked or looked
up in its in-memory cache; kernel_tuner/runners/sequential.py). t_s is that stamp minus the
wall-clock time just before tune_kernel was called, so it includes Kernel Tuner's start-up (CuPy
context, argument upload, search-space construction, warm-up launch) as ktune's done_s includes
its own. The summed compile/benchmark/framework/strategy times are not used: framework and strategy
times are amortised over a whole batch after the fact. Revisits that Kernel Tuner answers from its
cache count against max_fevals and are marked "cached".

Output: one JSON line per (strategy, repeat): {"tool": "kernel_tuner", "version", "kernel",
"problem", "strategy", "repeat", "seed", "valid_configs", "evals": [{"t_s", "config", "time_ms"
or null, "error", "cached", "compile_ms"}], "wall_s", "best", "notes", "error"}.
"""
import argparse
import contextlib
import datetime
import json
import os
import random
import re
import sys
import tempfile
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
KERNELS = REPO / "examples" / "kernels"

# kernel::device_limits (include/ktune/kernel/limits.hpp) and for_arch (src/kernel/limits.cpp).
_ARCH = {  # arch: (max_shared_bytes_per_block, sm_count, max_cluster_size)
    "sm_70": (98304, 80, 0),
    "sm_80": (166912, 108, 0),
    "sm_86": (101376, 84, 0),
    "sm_89": (101376, 142, 0),
    "sm_90": (232448, 132, 8),
    "sm_100": (232448, 148, 8),
}


def device_limits(arch):
    base = re.sub(r"[af]$", "", arch)
    if base not in _ARCH:
        raise SystemExit(f"unknown arch {arch!r} (known: {', '.join(_ARCH)})")
    smem, sms, cluster = _ARCH[base]
    return {
        "max_threads_per_block": 1024, "max_shared_bytes_per_block": smem, "sm_count": sms,
        "warp_size": 32, "max_block_dim_x": 1024, "max_block_dim_y": 1024, "max_block_dim_z": 64,
        "max_grid_dim_x": 2147483647, "max_grid_dim_y": 65535, "max_grid_dim_z": 65535,
        "max_cluster_size": cluster,
    }


# ---- ktune's expression language (docs/formats.md, "ktune.kernel": kernel::expr) -------------

class ExprError(Exception):
    pass


_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_]\w*)|(&&|\|\||==|!=|<=|>=|[-+*/%<>!?:(),]))")
_BINARY = {  # operator: (precedence, function); C's precedence, higher binds tighter
    "||": (1, None), "&&": (2, None),
    "==": (3, lambda a, b: int(a == b)), "!=": (3, lambda a, b: int(a != b)),
    "<": (4, lambda a, b: int(a < b)), "<=": (4, lambda a, b: int(a <= b)),
    ">": (4, lambda a, b: int(a > b)), ">=": (4, lambda a, b: int(a >= b)),
    "+": (5, lambda a, b: a + b), "-": (5, lambda a, b: a - b),
    "*": (6, lambda a, b: a * b), "/": (6, None), "%": (6, None),
}


def _cdiv(a, b):
    if b == 0:
        raise ExprError("division by zero")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q  # C truncates toward zero


def _cmod(a, b):
    return a - b * _cdiv(a, b)


def _ceil_div(a, b):
    if b == 0:
        raise ExprError("division by zero")
    return -((-a) // b) if b > 0 else _cdiv(a + b + 1, b)


class Expr:
    """A parsed ktune expression; value(bindings) evaluates it with C integer semantics."""

    def __init__(self, text):
        self.text = str(text)
        self.toks = []
        pos, s = 0, self.text
        while pos < len(s):
            if s[pos:].strip() == "":
                break
            m = _TOKEN.match(s, pos)
            if not m:
                raise ExprError(f"bad token at column {pos + 1} of {s!r}")
            self.toks.append(int(m.group(1)) if m.group(1) is not None else m.group(2) or m.group(3))
            pos = m.end()
        self.i = 0
        self.tree = self._ternary()
        if self.i != len(self.toks):
            raise ExprError(f"unexpected {self.toks[self.i]!r} in {s!r}")
        del self.toks

    def _peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def _take(self, want=None):
        t = self._peek()
        if want is not None and t != want:
            raise ExprError(f"expected {want!r} in {self.text!r}")
        self.i += 1
        return t

    def _ternary(self):
        c = self._binary(1)
        if self._peek() == "?":
            self._take()
            a = self._ternary()
            self._take(":")
            b = self._ternary()
            return ("?", c, a, b)
        return c

    def _binary(self, prec):
        left = self._unary()
        while True:
            op = self._peek()
            if not isinstance(op, str) or op not in _BINARY or _BINARY[op][0] < prec:
                return left
            self._take()
            right = self._binary(_BINARY[op][0] + 1)
            left = (op, left, right)

    def _unary(self):
        t = self._peek()
        if t in ("-", "+", "!"):
            self._take()
            return ("u" + t, self._unary())
        if t == "(":
            self._take()
            e = self._ternary()
            self._take(")")
            return e
        if isinstance(t, int):
            self._take()
            return ("n", t)
        if isinstance(t, str) and re.match(r"[A-Za-z_]", t):
            self._take()
            if self._peek() == "(":
                self._take()
                args = [self._ternary()]
                while self._peek() == ",":
                    self._take()
                    args.append(self._ternary())
                self._take(")")
                if t not in ("ceil_div", "min", "max") or (t == "ceil_div" and len(args) != 2):
                    raise ExprError(f"unknown function {t}/{len(args)} in {self.text!r}")
                return ("f", t, args)
            return ("v", t)
        raise ExprError(f"unexpected {t!r} in {self.text!r}")

    def names(self):
        out, stack = set(), [self.tree]
        while stack:
            n = stack.pop()
            if n[0] == "v":
                out.add(n[1])
            elif n[0] == "f":
                stack.extend(n[2])
            elif n[0] != "n":
                stack.extend(x for x in n[1:] if isinstance(x, tuple))
        return out

    def value(self, b):
        return self._ev(self.tree, b)

    def _ev(self, n, b):
        k = n[0]
        if k == "n":
            return n[1]
        if k == "v":
            if n[1] not in b:
                raise ExprError(f"unknown name {n[1]!r} in {self.text!r}")
            return int(b[n[1]])
        if k == "u-":
            return -self._ev(n[1], b)
        if k == "u+":
            return self._ev(n[1], b)
        if k == "u!":
            return int(not self._ev(n[1], b))
        if k == "?":
            return self._ev(n[2], b) if self._ev(n[1], b) else self._ev(n[3], b)
        if k == "f":
            a = [self._ev(x, b) for x in n[2]]
            return _ceil_div(*a) if n[1] == "ceil_div" else (min(a) if n[1] == "min" else max(a))
        if k == "&&":
            return int(bool(self._ev(n[1], b)) and bool(self._ev(n[2], b)))
        if k == "||":
            return int(bool(self._ev(n[1], b)) or bool(self._ev(n[2], b)))
        a, c = self._ev(n[1], b), self._ev(n[2], b)
        if k == "/":
            return _cdiv(a, c)
        if k == "%":
            return _cmod(a, c)
        return _BINARY[k][1](a, c)


def _expr(v):
    return Expr(v if isinstance(v, str) else str(int(v)))


# ---- the spec, translated ---------------------------------------------------------------------

def parse_problem(text):
    out = {}
    for part in filter(None, (text or "").split(",")):
        k, _, v = part.partition("=")
        if not _ or not k.strip():
            raise SystemExit(f"--problem: expected NAME=VALUE, got {part!r}")
        out[k.strip()] = int(v)
    return out


class Translation:
    """Everything Kernel Tuner's tune_kernel needs for one spec at one problem and arch."""

    def __init__(self, spec_path, problem, arch):
        self.spec_path = Path(spec_path)
        s = json.loads(self.spec_path.read_text())
        self.spec = s
        self.name = s["name"]
        self.dims = dict(s["dimensions"])
        for k, v in problem.items():
            if k not in self.dims:
                raise SystemExit(f"--problem: {k} is not a dimension of {self.name} ({', '.join(self.dims)})")
            self.dims[k] = v
        self.arch = arch
        self.limits = device_limits(arch)
        self.params = {k: list(v["values"]) for k, v in s["parameters"].items()}
        self.default = {k: v["default"] for k, v in s["parameters"].items()}
        self.restrictions = [_expr(r) for r in s.get("restrictions", [])]
        launch = s["launch"]
        if launch.get("cluster"):
            raise SystemExit("launch.cluster: Kernel Tuner's CuPy backend cannot launch clusters")
        pad = lambda xs: [_expr(x) for x in xs] + [_expr(1)] * (3 - len(xs))
        self.grid = pad(launch["grid"])
        self.block = pad(launch["block"])
        self.shared = _expr(launch["shared_bytes"]) if "shared_bytes" in launch else None
        d = s.get("defines", {})
        self.defines = {p: _expr(p) for p in d} if isinstance(d, list) else {k: _expr(v) for k, v in d.items()}
        # Kernel Tuner substitutes parameter values into the kernel name itself; dimensions and
        # device limits are constants of this run, substituted here.
        consts = {**self.limits, **self.dims}
        self.kernel_name = re.sub(r"[A-Za-z_]\w*",
                                  lambda m: str(consts[m.group(0)]) if m.group(0) in consts else m.group(0),
                                  s["kernel"])
        d = self.spec_path.parent
        parts = []
        for src in s["sources"]:
            p = (d / src).resolve()
            parts.append(f'#line 1 "{p}"\n' + p.read_text())
        self.source = "\n".join(parts)
        self.compiler_options = ["--std=c++17", f"-I{d.resolve()}"]
        self.compiler_options += [f"-I{(d / i).resolve()}" for i in s.get("include_dirs", [])]
        self.compiler_options += list(s.get("compile_options", []))
        # block_size_names can say a block whose leading entries are parameter names and whose
        # trailing ones are 1 (Kernel Tuner appends block_size_y/z, absent from the params: 1).
        texts = [e.text.strip() for e in self.block]
        while len(texts) > 1 and texts[-1] == "1":
            texts.pop()
        self.block_names = texts if all(t in self.params for t in texts) else None

    def bindings(self, p):
        return {**self.limits, **self.dims, **p}

    def geometry(self, p):
        b = self.bindings(p)
        return ([e.value(b) for e in self.grid], [e.value(b) for e in self.block],
                self.shared.value(b) if self.shared else 0)

    def reject_reason(self, p):
        """ktune's reject_reason (src/kernel/space.cpp): restrictions in order, then the limits."""
        try:
            b = self.bindings(p)
            for r in self.restrictions:
                if r.value(b) == 0:
                    return f"restriction {r.text}"
            grid, block, smem = self.geometry(p)
        except ExprError as e:
            return f"failed to evaluate: {e}"
        L = self.limits
        for i, ax in enumerate("xyz"):
            if block[i] < 1 or grid[i] < 1:
                return f"block.{ax} or grid.{ax} not positive"
            if block[i] > L[f"max_block_dim_{ax}"]:
                return f"block.{ax} > max_block_dim_{ax}"
            if grid[i] > L[f"max_grid_dim_{ax}"]:
                return f"grid.{ax} > max_grid_dim_{ax}"
        if block[0] * block[1] * block[2] > L["max_threads_per_block"]:
            return "threads > max_threads_per_block"
        if smem < 0 or smem > L["max_shared_bytes_per_block"]:
            return "shared_bytes out of range"
        return ""

    def restriction(self, p):
        return self.reject_reason(p) == ""

    def problem_size(self, p):
        return tuple(self.geometry(p)[0])

    def arguments(self, seed):
        import numpy as np

        rng = np.random.default_rng(seed)
        dt = {"fp64": np.float64, "fp32": np.float32, "fp16": np.float16, "bf16": np.uint16,
              "fp8_e4m3": np.uint8, "fp8_e5m2": np.uint8, "int64": np.int64, "int32": np.int32,
              "int8": np.int8, "uint8": np.uint8}
        consts = {**self.dims}
        out, notes = [], []
        for a in self.spec["arguments"]:
            if a["kind"] == "scalar":
                e = _expr(a["value"])
                if e.names() & set(self.params):
                    raise SystemExit(f"argument {a['name']}: a value that depends on parameters is not supported")
                out.append({"int32": np.int32, "int64": np.int64}[a["dtype"]](e.value(consts)))
                continue
            e = _expr(a["size"])
            if e.names() & set(self.params):
                raise SystemExit(f"argument {a['name']}: a size that depends on parameters is not supported")
            n, t, gen = e.value(consts), dt[a["dtype"]], a.get("input")
            if a["dtype"] in ("bf16", "fp8_e4m3", "fp8_e5m2") and gen not in (None, "zeros"):
                # The bits of a float near 1 are enough for timing; the values are never checked.
                arr = np.full(n, 0x3F80 if a["dtype"] == "bf16" else 0x38, dtype=t)
            elif gen == "uniform":
                arr = rng.uniform(-1.0, 1.0, n).astype(t)
            elif gen == "normal":
                arr = rng.standard_normal(n).astype(t)
            elif gen == "ones":
                arr = np.ones(n, dtype=t)
            elif gen == "iota":
                arr = np.arange(n).astype(t)
            else:
                arr = np.zeros(n, dtype=t)
            if gen and a.get("output"):
                notes.append(f"{a['name']} is input and output: Kernel Tuner does not reset it between "
                             "launches, so its values drift (the timing is unaffected)")
            out.append(arr)
        return out, notes

    def kt_defines(self):
        return {k: (lambda p, e=e: str(e.value(self.bindings(p)))) for k, e in self.defines.items()}

    def kt_kwargs(self):
        """tune_kernel's keyword arguments (all but arguments, strategy and its options)."""
        kw = dict(
            kernel_name=self.kernel_name, kernel_source=self.source, problem_size=self.problem_size,
            tune_params=self.params, grid_div_x=[], grid_div_y=[], grid_div_z=[],
            restrictions=self.restriction, lang="cupy", compiler_options=self.compiler_options,
            defines=self.kt_defines(), quiet=True, verbose=False,
        )
        if self.block_names:
            kw["block_size_names"] = list(self.block_names)  # Kernel Tuner appends to it
        if self.shared is not None:
            kw["smem_args"] = {"size": lambda p: self.geometry(p)[2]}
        return kw

    def valid_configs(self):
        """Kernel Tuner's own count: its Searchspace built from the same tune_params and restriction."""
        from kernel_tuner.searchspace import Searchspace

        return Searchspace(self.params, self.restriction, self.limits["max_threads_per_block"]).size

    def brute_count(self):
        import itertools

        keys = list(self.params)
        return sum(self.restriction(dict(zip(keys, v))) for v in itertools.product(*self.params.values()))


@contextlib.contextmanager
def kt_patches(tr):
    """The two launch details Kernel Tuner cannot express (module docstring): block expressions and
    the dynamic shared-memory opt-in. Restored on exit."""
    import kernel_tuner.util as ktu
    from kernel_tuner.backends.cupy import CupyFunctions

    old_block, old_smem = ktu.get_thread_block_dimensions, CupyFunctions.copy_shared_memory_args

    def block_dims(params, block_size_names=None):
        return tuple(tr.geometry(params)[1])

    def copy_smem(self, smem_args):
        old_smem(self, smem_args)
        if self.smem_size > 48 * 1024 and self.func is not None:
            # Newer CuPy deprecates the RawKernel property for .function's; it still delegates.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                self.func.max_dynamic_shared_size_bytes = int(self.smem_size)

    if not tr.block_names:
        ktu.get_thread_block_dimensions = block_dims
    CupyFunctions.copy_shared_memory_args = copy_smem
    try:
        yield
    finally:
        ktu.get_thread_block_dimensions = old_block
        CupyFunctions.copy_shared_memory_args = old_smem


def detect_arch():
    try:
        import cupy as cp

        major, minor = divmod(int(cp.cuda.Device(0).compute_capability), 10)
        return f"sm_{major}{minor}"
    except Exception:
        return "sm_90"


def simulation_cache(tr, space_path, into):
    """A recorded space (`ktune tune --record-space`, Kernel Tuner's cache format) as the cache file
    Kernel Tuner's simulation mode reads: its kernel name, and every timing it charges present."""
    j = json.loads(Path(space_path).read_text())
    j["kernel_name"] = tr.kernel_name
    j["problem_size"] = "callable"
    for e in j["cache"].values():
        for k in ("compile_time", "verification_time", "benchmark_time"):
            e.setdefault(k, 0)
    Path(into).write_text(json.dumps(j))


def process_started():
    """This process's start (epoch seconds, 10 ms resolution): /proc's start time since boot."""
    try:
        start_ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        btime = next(int(l.split()[1]) for l in Path("/proc/stat").read_text().splitlines()
                     if l.startswith("btime "))
        return btime + start_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, StopIteration, IndexError):
        return None


# What a fresh process pays before its first tune begins (interpreter, imports, CUDA, the host
# arrays): measured at the first tune of this process and charged to every one of its tunes, each
# of which a user would run as its own command (compare_tuners.py's "from process start").
STARTUP_S = None


def one_tune(tr, args_np, strategy, opts, seed, simulate=None):
    import numpy as np
    import kernel_tuner

    random.seed(seed)
    np.random.seed(seed)
    kw = tr.kt_kwargs()
    err, results, env = None, [], {}
    with tempfile.TemporaryDirectory() as cache_dir, kt_patches(tr):
        os.environ["CUPY_CACHE_DIR"] = cache_dir  # cold compile cache, as ktune's tunes here
        if simulate:
            kw["cache"] = os.path.join(cache_dir, "space.json")
            kw["simulation_mode"] = True
            simulation_cache(tr, simulate, kw["cache"])
        t0 = datetime.datetime.now(datetime.timezone.utc)
        w0 = time.perf_counter()
        global STARTUP_S
        if STARTUP_S is None and not simulate:
            started = process_started()
            STARTUP_S = None if started is None else max(0.0, t0.timestamp() - started)
        try:
            results, env = kernel_tuner.tune_kernel(arguments=args_np, strategy=strategy,
                                                    strategy_options=dict(opts), seed=seed, **kw)
        except Exception as e:  # a tune that dies is reported, the next one runs
            err = f"{type(e).__name__}: {e}"
        wall = time.perf_counter() - w0
    evals, seen, best, sim_s = [], set(), None, 0.0
    keys = list(tr.params)
    for r in results:
        cfg = {k: int(r[k]) for k in keys}
        key = tuple(cfg.values())
        if simulate:  # no clock: the recorded compile and benchmark times, summed
            sim_s += sum(float(r.get(k, 0)) for k in ("compile_time", "verification_time", "benchmark_time")) / 1000
            t_s = sim_s
        else:
            t_s = (datetime.datetime.fromisoformat(str(r["timestamp"])) - t0).total_seconds()
        failure = r.get("__error__")
        tm = r.get("time")
        ok = failure is None and isinstance(tm, (int, float))
        ev = {"t_s": round(t_s, 4), "config": cfg, "time_ms": float(tm) if ok else None,
              "error": None if ok else str(failure or tm), "cached": key in seen,
              "compile_ms": round(float(r.get("compile_time", 0)), 2)}
        seen.add(key)
        evals.append(ev)
        if ok and (best is None or ev["time_ms"] < best["time_ms"]):
            best = {"config": cfg, "time_ms": ev["time_ms"]}
    return {"evals": evals, "wall_s": round(wall, 3), "best": best, "error": err,
            "startup_s": None if STARTUP_S is None else round(STARTUP_S, 3),
            "device": env.get("device_name") if isinstance(env, dict) else None}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kernel", required=True, help="matmul, reduction, stencil, or a spec .json path")
    ap.add_argument("--problem", default="", help="e.g. M=1024,N=1024,K=1024 (default: the spec's)")
    ap.add_argument("--strategies", default="random_sample,genetic_algorithm,dual_annealing,greedy_ils,bayes_opt")
    ap.add_argument("--max-fevals", type=int, default=200)
    ap.add_argument("--time-limit", type=float, default=120.0, help="seconds per tune")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--arch", default=None, help="device limits of this arch (default: the GPU's, else sm_90)")
    ap.add_argument("--out", default="-", help="JSONL file (appended), - for stdout")
    ap.add_argument("--dry-run", action="store_true", help="print the translation and the space size; no GPU")
    ap.add_argument("--simulate", metavar="SPACE", help="no GPU: Kernel Tuner's simulation mode on a recorded "
                    "space (ktune tune --record-space); t_s is then the recorded compile + benchmark time")
    a = ap.parse_args(argv)

    spec = Path(a.kernel) if a.kernel.endswith(".json") else KERNELS / a.kernel / f"{a.kernel}.json"
    if not spec.is_file():
        ap.error(f"no spec {spec}")
    tr = Translation(spec, parse_problem(a.problem),
                     a.arch or ("sm_90" if a.dry_run or a.simulate else detect_arch()))
    strategies = [s for s in a.strategies.split(",") if s]
    if a.dry_run:
        kw = tr.kt_kwargs()
        shown = {k: (v if isinstance(v, (str, list, int, float)) and k != "kernel_source" or k == "tune_params"
                     else f"<{type(v).__name__}>") for k, v in kw.items()}
        d = tr.default
        print(json.dumps({
            "spec": str(spec), "arch": tr.arch, "problem": tr.dims, "tune_kernel": shown,
            "defines_at_default": {k: f(d) for k, f in tr.kt_defines().items()},
            "kernel_name_at_default": re.sub(r"[A-Za-z_]\w*", lambda m: str(d.get(m.group(0), m.group(0))), tr.kernel_name),
            "geometry_at_default": dict(zip(("grid", "block", "shared_bytes"), tr.geometry(d))),
            "block": "block_size_names" if tr.block_names else "spec expressions (get_thread_block_dimensions replaced)",
            "valid_configs": tr.brute_count(),
        }, indent=1))
        try:
            print(json.dumps({"kernel_tuner_searchspace_size": tr.valid_configs()}))
        except ImportError as e:
            print(json.dumps({"kernel_tuner_searchspace_size": None, "why": str(e)}))
        return 0

    import kernel_tuner  # noqa: F401  (fail early, before the large arrays are made)
    from importlib.metadata import version

    valid = tr.valid_configs()
    try:  # as ktune's compile: NVRTC >= 12.9 would also cache through the driver's compute cache
        import cupy

        if tuple(cupy.cuda.nvrtc.getVersion()) >= (12, 9):
            tr.compiler_options.append("--no-cache")
    except Exception:
        pass
    args_np, notes = tr.arguments(a.seed) if not a.simulate else ([], [f"simulation mode on {a.simulate}"])
    notes.append("output verification skipped (no answer passed): ktune's correctness gate is separate")
    if not tr.block_names:
        notes.append("block dims from the spec's expressions (kernel_tuner.util.get_thread_block_dimensions replaced)")
    out = sys.stdout if a.out == "-" else open(a.out, "a")
    rc = 0
    for strategy in strategies:
        for rep in range(a.repeat):
            seed = a.seed + rep
            r = one_tune(tr, args_np, strategy, {"max_fevals": a.max_fevals, "time_limit": a.time_limit}, seed,
                         a.simulate)
            line = {"tool": "kernel_tuner", "version": version("kernel_tuner"), "kernel": tr.name,
                    "spec": str(spec.relative_to(REPO)) if spec.resolve().is_relative_to(REPO) else str(spec),
                    "problem": tr.dims, "arch": tr.arch, "strategy": strategy, "repeat": rep, "seed": seed,
                    "max_fevals": a.max_fevals, "time_limit_s": a.time_limit, "valid_configs": valid,
                    **r, "notes": notes}
            out.write(json.dumps(line) + "\n")
            out.flush()
            n_ok = sum(e["time_ms"] is not None for e in r["evals"])
            print(f"kernel_tuner {tr.name} {strategy} rep {rep}: {len(r['evals'])} evals ({n_ok} ok), "
                  f"wall {r['wall_s']:.1f} s, best {r['best']}" + (f", ERROR {r['error']}" if r["error"] else ""),
                  file=sys.stderr)
            rc |= r["error"] is not None
    return rc


if __name__ == "__main__":
    sys.exit(main())
