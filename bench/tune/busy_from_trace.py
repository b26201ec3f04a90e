#!/usr/bin/env python3
"""GPU busy of a tune as an observer sees it: the union of every device activity interval
(kernels, memsets, memcpys) in `ktune export --format csv` files of the tune's processes,
over the tune's wall time (from bench_tune's JSON line).

usage: busy_from_trace.py BENCH_JSONL_LINE_FILE TRACE.csv [TRACE.csv ...]
Prints one JSON line: wall_s, busy_all_s / pct (kernels + memsets + memcpys),
busy_kernels_s / pct (what `ktune top` counts), span_s (first to last activity)."""
import csv
import json
import sys


def union(intervals):
    total, cur_s, cur_e = 0, None, None
    for s, e in sorted(intervals):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        elif e > cur_e:
            cur_e = e
    if cur_e is not None:
        total += cur_e - cur_s
    return total


def main():
    bench = None
    for line in open(sys.argv[1]):
        try:
            j = json.loads(line)
        except ValueError:
            continue  # ktune profile's own lines
        if isinstance(j, dict) and "summary" in j:
            bench = j
    if bench is None:
        print(json.dumps({"error": "no bench_tune line in " + sys.argv[1]}))
        return 1
    wall = bench["summary"]["wall_s"]
    every, kernels = [], []
    for path in sys.argv[2:]:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                if row["kind"] not in ("kernel", "memset", "memcpy") or row["no_timestamp"] == "1":
                    continue
                iv = (int(row["start_ns"]), int(row["end_ns"]))
                every.append(iv)
                if row["kind"] == "kernel":
                    kernels.append(iv)
    if not every:
        print(json.dumps({"error": "no timed device activity in the traces"}))
        return 1
    span = (max(e for _, e in every) - min(s for s, _ in every)) / 1e9
    b_all, b_k = union(every) / 1e9, union(kernels) / 1e9
    print(json.dumps({"wall_s": wall, "span_s": span, "records": len(every),
                      "busy_all_s": b_all, "busy_all_pct": 100 * b_all / wall,
                      "busy_kernels_s": b_k, "busy_kernels_pct": 100 * b_k / wall,
                      "event_busy_pct": bench["summary"]["gpu_busy_pct"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
