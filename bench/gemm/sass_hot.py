#!/usr/bin/env python3
"""The hottest SASS lines of one kernel in an ncu report, and the metrics that tell where its
bytes and cycles go (docs/perf/gemm.md#lean-consumer).

    sass_hot.py SOURCE.csv RAW.csv [TOP]

SOURCE.csv: `ncu -i REP --page source --csv --print-source sass`; RAW.csv: `ncu -i REP --page raw
--csv`. Prints the TOP (default 30) lines by warp-stall samples with each line's share and its
three largest stall reasons where the page has them, then the raw metrics named below and the
kernel's largest `smsp__pcsamp_warps_issue_stalled_*` totals.
"""
import csv
import re
import sys

RAW_METRICS = [
    r"^gpu__time_duration\.sum$",
    r"^sm__cycles_active\.avg$",
    r"^smsp__inst_executed\.sum$",
    r"^dram__bytes_read\.sum$",
    r"^lts__t_bytes\.sum$",
    r"^lts__t_sectors_op_read\.sum$",
    r"^lts__t_sectors_srcunit_tex_op_read\.sum$",
    r"^lts__t_requests_srcunit_tex_op_read\.sum$",
    r"^lts__t_sectors_srcunit_tex_op_read_lookup_(hit|miss)\.sum$",
    r"^lts__t_sectors_srcunit_ltcfabric\.sum$",
    r"^l1tex__m_xbar2l1tex_read_bytes\.sum$",
    r"^lts__throughput\.avg\.pct_of_peak_sustained_elapsed$",
    r"^dram__throughput\.avg\.pct_of_peak_sustained_elapsed$",
    r"^smsp__warps_active\.avg\.per_cycle_active$",
    r"^sm__warps_active\.avg\.pct_of_peak_sustained_active$",
]


def number(s):
    try:
        return float(s.replace(",", ""))
    except (ValueError, AttributeError):
        return None


def rows_of(path):
    with open(path, newline="") as f:
        return [r for r in csv.reader(f)]


def hot_lines(path, top):
    rows = rows_of(path)
    head_at = next((i for i, r in enumerate(rows) if "Source" in r), None)
    if head_at is None:
        print(f"{path}: no source table")
        return
    head = rows[head_at]
    body = [r for r in rows[head_at + 1:] if len(r) == len(head)]
    samples = next((i for i, h in enumerate(head) if "Sampling (All" in h), None)
    if samples is None:
        print(f"{path}: no stall sampling column; columns: {head}")
        return
    src = head.index("Source")
    executed = next((i for i, h in enumerate(head) if "Instructions Executed" in h), None)
    reasons = [i for i, h in enumerate(head) if h.startswith("stall_")]
    total = sum(number(r[samples]) or 0 for r in body)
    print(f"{len(body)} SASS lines, {total:.0f} samples")
    if executed is not None:
        by_exec = {}
        for r in body:
            e = number(r[executed]) or 0
            by_exec[e] = by_exec.get(e, 0) + (number(r[samples]) or 0)
        share = sorted(by_exec.items(), key=lambda kv: -kv[1])[:6]
        print("samples by execution count (lines run as often share a loop): " +
              ", ".join(f"{e:.0f}x {100 * n / max(total, 1):.1f} %" for e, n in share))
    for r in sorted(body, key=lambda r: -(number(r[samples]) or 0))[:top]:
        n = number(r[samples]) or 0
        why = sorted(((number(r[i]) or 0, head[i]) for i in reasons), reverse=True)[:3]
        why = ", ".join(f"{h} {v:.0f}" for v, h in why if v > 0)
        ex = f" exec {r[executed]}" if executed is not None else ""
        print(f"{100 * n / max(total, 1):5.1f} % {r[src].strip()[:70]:70s}{ex} {why}")


def raw_metrics(path):
    rows = rows_of(path)
    if len(rows) < 3:
        print(f"{path}: no raw metrics")
        return
    names, units, values = rows[0], rows[1], rows[2]
    for pat in RAW_METRICS:
        for i, n in enumerate(names):
            if re.match(pat, n):
                print(f"  {n} = {values[i]} {units[i]}")
    stalls = [(number(values[i]) or 0, n) for i, n in enumerate(names)
              if n.startswith("smsp__pcsamp_warps_issue_stalled_") and "not_issued" not in n]
    total = sum(v for v, _ in stalls)
    for v, n in sorted(stalls, reverse=True)[:8]:
        reason = n[len("smsp__pcsamp_warps_issue_stalled_"):].removesuffix(".sum")
        print(f"  {reason} {100 * v / max(total, 1):.1f} %")


if __name__ == "__main__":
    hot_lines(sys.argv[1], int(sys.argv[3]) if len(sys.argv) > 3 else 30)
    raw_metrics(sys.argv[2])
