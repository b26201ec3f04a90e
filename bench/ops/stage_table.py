#!/usr/bin/env python3
"""The stage table (docs/perf/kernels.md) from bench_configs' JSON lines:
  stage_table.py STAGE.jsonl COPY_SIZES.jsonl
Per (op, dtype, shape): the default, the earlier tuned winner (docs/perf/tune.md#split-rows) and
the best config of the new axis values (stage=smem_tma, docs/perf/kernels.md#staged-rows; once also
transpose form=regs, since dropped), each with its
median, CI and % of the 512 MiB copy; then every config, best first."""
import json
import sys
from collections import defaultdict

runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
copies = [json.loads(l) for l in open(sys.argv[2]) if l.strip()] if len(sys.argv) > 2 else []
copy = copies[0]["copy_gbs"] if copies else None
print(f"512 MiB copy: {copy:.0f} GB/s\n" if copy else "no copy timing\n")


def pct(j):
    return f"{100 * j['gbs'] / copy:.1f}" if copy and "gbs" in j else ""


def new_axis(j):
    # the staged-rows forms: smem_tma, transpose form=regs (docs/perf/kernels.md#staged-rows);
    # smem_ring, 128-tiles (docs/perf/kernels.md#long-row-forms)
    c = j["config"]
    return any(a in c for a in ("stage=smem_tma", "form=regs", "stage=smem_ring", "tile=128,"))


groups = defaultdict(list)
for j in runs:
    groups[(j["op"], j["dtype"], j["shape"])].append(j)
print("| op | dtype | shape | default % | tuned winner % | best new-axis % "
      "| best new-axis config | ms [CI] |")
print("|---|---|---|---|---|---|---|---|")
for key, js in groups.items():
    ok = [j for j in js if j.get("status") == "ok"]
    bad = [j for j in js if j.get("status") != "ok"]
    d = next((j for j in ok if j["default"]), None)
    smem = sorted((j for j in ok if new_axis(j)), key=lambda j: j["median_ms"])
    regs = sorted((j for j in ok if not new_axis(j) and not j["default"]),
                  key=lambda j: j["median_ms"])
    b = smem[0] if smem else None
    print(f"| {' | '.join(key)} | {pct(d) if d else ''} | {pct(regs[0]) if regs else ''} | "
          f"{pct(b) if b else ''} | "
          f"{b['config'] if b else ''} | "
          + (f"{b['median_ms']:.4f} [{b['ci_ms'][0]:.4f}, {b['ci_ms'][1]:.4f}]" if b else "")
          + f" |{' (' + str(len(bad)) + ' failed: ' + bad[0].get('status', '') + ')' if bad else ''}")
print("\nall configs, best first per problem:")
for key, js in groups.items():
    print(" ".join(key))
    for j in sorted(js, key=lambda j: j.get("median_ms", 1e9)):
        print(f"  {j.get('median_ms', float('nan')):.4f} ms {pct(j):>6} % {j['status']:<14} "
              f"{'default ' if j['default'] else ''}{j['config']} {j.get('message', '')[:120]}")
