#!/usr/bin/env python3
"""Where a live tune's wall time went, from `ktune tune ... --json` reports (ktune.tune_op).

    python3 bench/kernel/tune_timeline.py [--batch N] out/ktune_matmul_*.json > timeline.md

Per report: the set-up milestones (setup_ms), when the default's result and the first
candidate's came in, the candidates' arrival rate after the first, the compile times (NVRTC,
per candidate: median and the slowest of each batch), and the totals the tuner keeps: GPU busy,
the time the tune waited for compiles, the confirmation round. The search's steady state is
"gap": seconds between consecutive batches' last results (batch = --batch, the live batch the
tune proposed). Reads only fields of docs/formats.md#ktunetune_op.
"""
import argparse
import json
import statistics


def fmt(v, spec="{:.2f}"):
    return "n/a" if v is None else spec.format(v)


def timeline(path, batch):
    j = json.load(open(path))
    batch = batch or j.get("in_flight") or 8
    cands = j.get("candidates", [])
    done = [c.get("done_s", 0.0) for c in cands]
    comp = [c.get("compile_ms", 0.0) for c in cands]
    marks = j.get("setup_ms", {})
    lines = [f"### {path}", ""]
    lines.append("set-up (ms since the tune began): " +
                 ", ".join(f"{k} {v:.0f}" for k, v in sorted(marks.items(), key=lambda kv: kv[1])))
    lines.append(f"wall {fmt(j.get('wall_s'))} s, setup {fmt(j.get('setup_s'))} s, gpu busy "
                 f"{fmt(j.get('gpu_busy_s'))} s, waited for compiles "
                 f"{fmt(j.get('compile_wait_s'))} s, compile CPU {fmt(j.get('compile_cpu_s'))} s, "
                 f"confirm {fmt(j.get('confirm_s'))} s, {len(cands)} candidates")
    if not cands:
        return "\n".join(lines)
    lines.append(f"first candidate's result at {done[0]:.3f} s, last at {done[-1]:.3f} s: "
                 f"{(len(done) - 1) / max(done[-1] - done[0], 1e-9):.1f} results/s after the first")
    lines.append(f"compile_ms per candidate: median {statistics.median(comp):.0f}, "
                 f"max {max(comp):.0f}")
    lines.append("")
    lines.append("| batch | results at (s) | gap (s) | compile_ms median | compile_ms max | "
                 "samples median |")
    lines.append("|---|---|---|---|---|---|")
    prev = None
    for b0 in range(0, len(cands), batch):
        part = cands[b0:b0 + batch]
        t = part[-1].get("done_s", 0.0)
        cm = [c.get("compile_ms", 0.0) for c in part]
        sm = [c.get("samples", 0) for c in part]
        lines.append(f"| {b0 // batch} | {part[0].get('done_s', 0.0):.3f}..{t:.3f} | "
                     f"{fmt(None if prev is None else t - prev, '{:.3f}')} | "
                     f"{statistics.median(cm):.0f} | {max(cm):.0f} | {statistics.median(sm):.0f} |")
        prev = t
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=0,
                    help="results a row (default: the report's in_flight, else 8)")
    ap.add_argument("reports", nargs="+")
    a = ap.parse_args()
    for p in a.reports:
        print(timeline(p, a.batch))
        print()


if __name__ == "__main__":
    main()
