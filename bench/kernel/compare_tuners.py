#!/usr/bin/env python3
"""ktune vs Kernel Tuner on the same user kernels, judged on one brute-forced reference space.

    python3 bench/kernel/compare_tuners.py --brute out/brute_matmul.json ... \
        --ktune out/ktune_matmul*.json ... --kt out/kt_matmul.jsonl ... [--target 1.05] > table.md

Inputs, matched by kernel name (the spec's "name"):
  --brute  `ktune tune --kernel SPEC --strategy exhaustive --record-space FILE`: Kernel Tuner's
           cache format, {"kernel_name", "tune_params_keys", "cache": {"v1,v2,..": {.., "time": ms
           or a failure string}}}. Its ok times are the reference; its minimum is the optimum.
  --ktune  `ktune tune --kernel SPEC --json` (ktune.tune_op, docs/formats.md): "op" (the kernel's
           name), "wall_s", "winner.config", "candidates[]" with "config", "status", "median_us"
           and "done_s" (seconds since the tune began when the result came in). One file per run.
  --kt     bench/kernel/kernel_tuner_compare.py's JSONL: one line per (strategy, repeat).

Why one reference: the tools time differently (ktune: L2 flushed, median of >= 16 launches;
Kernel Tuner: mean of 7 back-to-back launches), so each tool's own numbers would answer "how good
is its winner" in two currencies. Here every config a tool measured successfully is looked up in
the brute-force space: a run reaches the target at the first such config within target x optimum,
at the tool's clock (ktune done_s, Kernel Tuner t_s, both from the start of the tune call). A
config missing from the reference never counts as reached.

Per tool/strategy, over its runs: time to target (median; a run that never reached it is a miss,
and the median is "miss" when half or more missed); the same from process start, as a user who runs
each tune as its own command waits (ktune: its process wall, in REPORT.process_ms beside the report,
less the tune's wall_s, i.e. start-up and exit; Kernel Tuner: the interpreter, imports, CUDA start
and host arrays before its process's first tune_kernel call, kernel_tuner_compare.py's startup_s,
charged to each of that process's tunes); runs that reached it, evaluations to target,
the final config's reference time / optimum (ktune: its winner; Kernel Tuner: its best measured
config), evaluations (distinct configs measured; Kernel Tuner's cache revisits in brackets), and
the tune's total wall time. The last line per kernel: ktune's median time to target divided by
the best Kernel Tuner strategy's (the aim is <= 1/3).
"""
import argparse
import json
import math
import statistics
import sys


def load_brute(path):
    j = json.load(open(path))
    keys = j["tune_params_keys"]
    ref = {}
    for k, e in j["cache"].items():
        t = e.get("time")
        ref[k] = float(t) if isinstance(t, (int, float)) and not isinstance(t, bool) else None
    ok = [t for t in ref.values() if t is not None]
    if not ok:
        raise SystemExit(f"{path}: no config ran")
    return {"name": j.get("kernel_name", path), "keys": keys, "ref": ref, "opt": min(ok),
            "configs": len(ref), "ok": len(ok), "device": j.get("device_name", "")}


def key_of(cfg, keys):
    try:
        return ",".join(str(cfg[k]) for k in keys)
    except KeyError:
        return None


def run_from_ktune(j, process_wall_s=None):
    """A ktune.tune_op report as a run: evals in arrival order, final config, wall; the process's
    own time outside the tune (its whole wall, when known, less the tune's) as its start-up."""
    evals = []
    for c in j.get("candidates", []):
        evals.append({"t_s": float(c.get("done_s", 0.0)), "config": c["config"],
                      "ok": c.get("status") == "ok", "cached": False})
    evals.sort(key=lambda e: e["t_s"])
    win = j.get("winner") or {}
    startup = None
    if process_wall_s is not None and j.get("wall_s") is not None:
        startup = max(0.0, process_wall_s - float(j["wall_s"]))
    return {"tool": "ktune", "strategy": j.get("strategy", "?"), "evals": evals,
            "final": win.get("config"), "wall_s": j.get("wall_s"), "error": None,
            "startup_s": startup}


def run_from_kt(j):
    evals = [{"t_s": float(e["t_s"]), "config": e["config"], "ok": e["time_ms"] is not None,
              "cached": bool(e.get("cached"))} for e in j.get("evals", [])]
    evals.sort(key=lambda e: e["t_s"])
    best = j.get("best") or {}
    return {"tool": "kernel_tuner", "strategy": j["strategy"], "evals": evals,
            "final": best.get("config"), "wall_s": j.get("wall_s"), "error": j.get("error"),
            "startup_s": j.get("startup_s")}


def judge(run, b, target):
    """Time and evaluations to target, final/optimum, distinct evaluations, on the reference."""
    limit = target * b["opt"]
    seen, t_hit, n_hit = set(), None, None
    for e in run["evals"]:
        k = key_of(e["config"], b["keys"])
        if not e["cached"]:
            seen.add(k)
        if t_hit is None and e["ok"] and k is not None:
            t = b["ref"].get(k)
            if t is not None and t <= limit:
                t_hit, n_hit = e["t_s"], len(seen)
    fk = key_of(run["final"], b["keys"]) if run["final"] else None
    ft = b["ref"].get(fk) if fk else None
    su = run.get("startup_s")
    return {"t_hit": t_hit, "n_hit": n_hit, "final_ratio": ft / b["opt"] if ft else None,
            "p_hit": None if t_hit is None or su is None else t_hit + su,
            "evals": len(seen), "revisits": sum(e["cached"] for e in run["evals"]),
            "wall_s": run["wall_s"], "error": run["error"]}


def median_or_miss(values):
    """Median with misses (None) as +inf: 'miss' when the median itself is a miss."""
    if not values:
        return None
    m = statistics.median([math.inf if v is None else v for v in values])
    return None if math.isinf(m) else m


def fmt(v, spec="{:.1f}", none="miss"):
    return none if v is None else spec.format(v)


def table(b, runs, target):
    groups = {}
    for r in runs:
        groups.setdefault((r["tool"], r["strategy"]), []).append(judge(r, b, target))
    lines = [f"### {b['name']} ({b['configs']} configs, {b['ok']} ran; optimum {b['opt'] * 1000:.2f} us"
             f"{' on ' + b['device'] if b['device'] else ''}; target {target:g}x)", "",
             f"| tool | strategy | runs | time to {target:g}x (s) | from process start (s) | reached "
             f"| evals to {target:g}x | final / optimum | evals | wall (s) |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    summary, from_start = {}, {}
    for (tool, strat), js in sorted(groups.items(), key=lambda kv: (kv[0][0] != "ktune", kv[0][1])):
        t = median_or_miss([j["t_hit"] for j in js])
        n = median_or_miss([j["n_hit"] for j in js])
        fr = [j["final_ratio"] for j in js if j["final_ratio"] is not None]
        ev = statistics.median([j["evals"] for j in js])
        rv = statistics.median([j["revisits"] for j in js])
        walls = [j["wall_s"] for j in js if j["wall_s"] is not None]
        errs = sum(j["error"] is not None for j in js)
        # From process start: only when every run knows its start-up (else "n/a").
        p = median_or_miss([j["p_hit"] for j in js]) if all(
            j["p_hit"] is not None or j["t_hit"] is None for j in js) else "n/a"
        summary[(tool, strat)] = t
        from_start[(tool, strat)] = None if p == "n/a" else p
        lines.append(
            f"| {tool} | {strat} | {len(js)}{f' ({errs} failed)' if errs else ''} | {fmt(t, '{:.2f}')} "
            f"| {p if p == 'n/a' else fmt(p, '{:.2f}')} "
            f"| {sum(j['t_hit'] is not None for j in js)}/{len(js)} | {fmt(n, '{:g}')} "
            f"| {fmt(statistics.median(fr) if fr else None, '{:.3f}', 'n/a')} "
            f"| {ev:g}{f' (+{rv:g} revisits)' if rv else ''} "
            f"| {fmt(statistics.median(walls) if walls else None, '{:.1f}', 'n/a')} |")
    kt = {s: t for (tool, s), t in summary.items() if tool == "kernel_tuner" and t is not None}
    kq = [t for (tool, _), t in summary.items() if tool == "ktune"]
    lines.append("")
    if not kq:
        lines.append("ktune: no run.")
    elif kq[0] is None:
        lines.append(f"ktune did not reach {target:g}x of the optimum in most runs.")
    elif not kt:
        lines.append(f"ktune reached {target:g}x in {kq[0]:.2f} s; no Kernel Tuner strategy reached it "
                     "in most runs (ratio: ktune / never).")
    else:
        s, t = min(kt.items(), key=lambda kv: kv[1])
        ratio = kq[0] / t if t > 0 else math.inf
        lines.append(f"ktune time to {target:g}x / best Kernel Tuner strategy's ({s}): {kq[0]:.2f} s / "
                     f"{t:.2f} s = **{ratio:.2f}** (aim <= 0.33: {'met' if ratio <= 1 / 3 else 'not met'}).")
        kp = [v for (tool, _), v in from_start.items() if tool == "ktune"]
        ktp = {s2: v for (tool, s2), v in from_start.items() if tool == "kernel_tuner" and v is not None}
        if kp and kp[0] is not None and ktp:
            s2, t2 = min(ktp.items(), key=lambda kv: kv[1])
            r2 = kp[0] / t2 if t2 > 0 else math.inf
            lines.append(f"From process start (each tune run as its own command): {kp[0]:.2f} s / "
                         f"{t2:.2f} s ({s2}) = **{r2:.2f}**.")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--brute", nargs="+", required=True, help="brute-force recorded spaces, one per kernel")
    ap.add_argument("--ktune", nargs="*", default=[], help="ktune tune --kernel --json reports")
    ap.add_argument("--kt", nargs="*", default=[], help="kernel_tuner_compare.py JSONL files")
    ap.add_argument("--target", type=float, default=1.05)
    a = ap.parse_args(argv)

    runs = {}
    for p in a.ktune:
        try:
            j = json.load(open(p))
        except (OSError, ValueError) as e:
            print(f"skipping {p}: {e}", file=sys.stderr)
            continue
        if j.get("cache_hit"):
            print(f"skipping {p}: a cache hit, not a tune", file=sys.stderr)
            continue
        wall = None  # the process's wall in ms, written beside the report by the GPU step
        try:
            wall = float(open(p + ".process_ms").read()) / 1000
        except (OSError, ValueError):
            pass
        runs.setdefault(j["op"], []).append(run_from_ktune(j, wall))
    for p in a.kt:
        try:
            lines = open(p).read().splitlines()
        except OSError as e:
            print(f"skipping {p}: {e}", file=sys.stderr)
            continue
        for line in filter(str.strip, lines):
            j = json.loads(line)
            runs.setdefault(j["kernel"], []).append(run_from_kt(j))
    out = []
    for p in a.brute:
        try:
            b = load_brute(p)
        except (OSError, ValueError, KeyError) as e:
            out.append(f"### {p}\n\nno reference: {e}\n")
            continue
        out.append(table(b, runs.get(b["name"], []), a.target))
    sys.stdout.write("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
