#!/usr/bin/env python3
"""Table of step gemm_sbs (docs/perf/gemm.md#side-by-side-tunableop-and-triton): per shape,
cuBLAS's default pick and ktune's pick (`ktune tune gemm --json`), torch.matmul, TunableOp and
the autotuned Triton GEMM (bench/gemm/side_by_side.py), their tune times, and each one's time
over ktune's.

  sbs_table.py FILE... > table.md

FILEs are read by content: ktune.tune.gemm / ktune.tune.gemm_plan documents, JSON lines of
ktune.gemm_sbs (side_by_side.py) and ktune.gemm_sbs_wall (the step's wall time of each ktune
process). Times are medians in us; a ratio is marked "≈" when the two 95 % CIs overlap (a tie)."""
import collections
import json
import math
import statistics
import sys

VARIANTS = ("torch", "tunableop", "triton")


def load(paths):
    """-> (ktune {shape: tune doc}, walls {shape: wall row}, sbs {(shape, variant): row},
    problems [text])."""
    ktune, walls, sbs, problems = {}, {}, {}, []

    def take(doc, where):
        schema = doc.get("schema") if isinstance(doc, dict) else None
        if schema == "ktune.tune.gemm_plan":
            for d in doc.get("tunes", []):
                take(d, where)
        elif schema == "ktune.tune.gemm":
            p = doc["problem"]
            if p.get("dtype", "bf16") == "bf16" and p.get("layout", "tn") == "tn":
                ktune[f'{p["m"]}x{p["n"]}x{p["k"]}'] = doc
        elif schema == "ktune.gemm_sbs_wall":
            walls[doc["shape"]] = doc
        elif schema == "ktune.gemm_sbs":
            sbs[(doc["shape"], doc["variant"])] = doc
        else:
            problems.append(f"{where}: not a known document")

    for path in paths:
        try:
            with open(path) as f:
                text = f.read()
        except OSError as e:
            problems.append(f"{path}: {e}")
            continue
        try:
            take(json.loads(text), path)
            continue
        except ValueError:
            pass
        for i, line in enumerate(text.splitlines(), 1):
            if line.strip().startswith("{"):
                try:
                    take(json.loads(line), f"{path}:{i}")
                except (ValueError, KeyError) as e:
                    problems.append(f"{path}:{i}: {e}")
    return ktune, walls, sbs, problems


def shape_key(shape):
    m, n, k = (int(x) for x in shape.split("x"))
    return m, n, k


def timing(d):
    """(median, lo, hi) of a candidate or row that was timed, else None."""
    if not d or not d.get("median_us") or d.get("status", "ok") != "ok" or d.get("ok") is False:
        return None
    ci = d.get("ci_us") or [d["median_us"], d["median_us"]]
    return d["median_us"], ci[0], ci[1]


def us(t):
    return f"{t[0]:.2f}" if t else "—"


def ratio(t, ref):
    """t / ref with "≈" when the CIs overlap; (text, value or None, verdict)."""
    if not t or not ref:
        return "—", None, None
    r = t[0] / ref[0]
    if t[1] > ref[2]:
        verdict = "slower"
    elif t[2] < ref[1]:
        verdict = "faster"
    else:
        verdict = "tie"
    return ("≈" if verdict == "tie" else "") + f"{r:.3f}", r, verdict


def secs(x):
    return f"{x:.2f}" if isinstance(x, (int, float)) else "—"


def table(ktune, walls, sbs):
    shapes = sorted({s for s in ktune} | {s for s, _ in sbs} | set(walls), key=shape_key)
    out = ["| shape | cuBLAS default us | ktune us | torch.matmul us | TunableOp us | Triton us "
           "| ktune tune s (wall) | TunableOp tune s | Triton tune s (warm) | torch / ktune "
           "| TunableOp / ktune | Triton / ktune | TunableOp pick (of) | Triton error / tol |",
           "|" + "---|" * 14]
    stats = {v: collections.defaultdict(list) for v in VARIANTS}
    for s in shapes:
        d = ktune.get(s)
        de = timing(d["default"]) if d else None
        kt = timing(d["winner"]) if d else None
        w = walls.get(s, {})
        kt_tune = f'{secs(d["tune_seconds"]) if d else "—"} ({secs(w.get("wall_s"))})'
        rows = {v: sbs.get((s, v)) for v in VARIANTS}
        ts = {v: timing(rows[v]) for v in VARIANTS}
        rs = {}
        for v in VARIANTS:
            rs[v] = ratio(ts[v], kt)
            if rs[v][1] is not None:
                stats[v]["ratio"].append(rs[v][1])
                stats[v][rs[v][2]].append(s)
            tune = (rows[v] or {}).get("tune_s")
            if isinstance(tune, (int, float)):
                stats[v]["tune"].append(tune)
        tun, tri = rows["tunableop"] or {}, rows["triton"] or {}
        pick = tun.get("tunableop_solution") or "—"
        if tun.get("tunableop_candidates"):
            pick += f' ({tun["tunableop_candidates"]})'
        err = tri.get("max_err_ratio")
        err_text = "—"
        if isinstance(err, (int, float)):
            err_text = f"{err:.3g}" + ("" if err <= 1 else " FAIL")
        tri_tune = f'{secs(tri.get("tune_s"))} ({secs(tri.get("retune_warm_s"))})'
        out.append(f"| {s} | {us(de)} | {us(kt)} | {us(ts['torch'])} | {us(ts['tunableop'])} "
                   f"| {us(ts['triton'])} | {kt_tune} | {secs(tun.get('tune_s'))} | {tri_tune} "
                   f"| {rs['torch'][0]} | {rs['tunableop'][0]} | {rs['triton'][0]} | {pick} "
                   f"| {err_text} |")
    return out, stats


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def summary(ktune, walls, sbs, stats):
    out = []
    names = {"torch": "torch.matmul", "tunableop": "TunableOp", "triton": "Triton"}
    for v in VARIANTS:
        st = stats[v]
        if not st["ratio"]:
            out.append(f"- {names[v]}: no shape timed beside ktune")
            continue
        line = (f"- {names[v]} / ktune over {len(st['ratio'])} shapes: geomean "
                f"{geomean(st['ratio']):.3f}, min {min(st['ratio']):.3f}, max "
                f"{max(st['ratio']):.3f}; slower (CIs apart) {len(st['slower'])}, ties "
                f"{len(st['tie'])}, faster {len(st['faster'])}")
        if st["faster"]:
            line += f" ({', '.join(st['faster'])})"
        out.append(line)
    tunes = [d["tune_seconds"] for d in ktune.values() if "tune_seconds" in d]
    wall = [w["wall_s"] for w in walls.values() if isinstance(w.get("wall_s"), (int, float))]
    for name, xs in (("ktune tune_seconds", tunes), ("ktune process wall", wall),
                     ("TunableOp first call", stats["tunableop"]["tune"]),
                     ("Triton cold tune", stats["triton"]["tune"])):
        if xs:
            out.append(f"- {name}: median {statistics.median(xs):.2f} s, max {max(xs):.2f} s, "
                       f"sum {sum(xs):.1f} s over {len(xs)} shapes")
    picks = collections.Counter()
    cands = collections.Counter()
    for (s, v), r in sbs.items():
        if v == "tunableop" and r.get("ok"):
            picks[r.get("tunableop_solution") or "unknown"] += 1
            cands[r.get("tunableop_candidates")] += 1
    if picks:
        out.append(f"- TunableOp picks: {dict(picks)}; candidates per problem: "
                   f"{ {str(k): n for k, n in cands.items()} }")
    bad = sorted(f"{s} {v}" for (s, v), r in sbs.items() if r.get("check_ok") is False)
    if bad:
        out.append(f"- outside ktune's tolerance: {', '.join(bad)}")
    failed = sorted((s, v, r.get("message", "")) for (s, v), r in sbs.items() if not r.get("ok"))
    for s, v, msg in failed:
        out.append(f"- not timed: {s} {v}: {msg}")
    for s, w in sorted(walls.items()):
        if w.get("rc", 0) not in (0, 1) or s not in ktune:
            out.append(f"- ktune {s}: rc {w.get('rc')}, no tune document")
    env = {}
    for r in sbs.values():
        for key in ("gpu", "torch", "triton"):
            if r.get(key):
                env.setdefault(key, r[key])
    if env:
        out.append("- " + ", ".join(f"{k} {v}" for k, v in env.items()))
    return out


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    ktune, walls, sbs, problems = load(argv)
    if not ktune and not sbs:
        print("no results")
        for p in problems:
            print(f"<!-- {p} -->")
        return 0
    lines, stats = table(ktune, walls, sbs)
    print("\n".join(lines))
    print()
    print("\n".join(summary(ktune, walls, sbs, stats)))
    for p in problems:
        print(f"<!-- {p} -->")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
