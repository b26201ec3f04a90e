#!/usr/bin/env python3
"""Summary of step ln_ncu (bench/ops/gpu_step_layernorm.sh): ncu --csv --page raw sections,
one per "== layernorm DTYPE SHAPE CONFIG" line, as one table row each:
  ln_ncu_table.py ln_ncu.txt
L2 bytes are 32-byte sectors; 'L2 / x' is the L2 traffic over the bytes of x (a copy: 2)."""
import csv
import io
import sys

rows, head = [], None
lines = open(sys.argv[1], errors="replace").read().splitlines()
i = 0
while i < len(lines):
    line = lines[i]
    if line.startswith("== layernorm"):
        head = line[3:]
    elif line.startswith('"ID"') and head and i + 2 < len(lines):
        names = next(csv.reader(io.StringIO(line)))
        units = next(csv.reader(io.StringIO(lines[i + 1])))
        vals = next(csv.reader(io.StringIO(lines[i + 2])))
        rows.append((head, dict(zip(names, zip(vals, units)))))
        head = None
        i += 2
    i += 1


def num(m, k, scale=1.0):
    v, u = m.get(k, ("", ""))
    try:
        x = float(v.replace(",", ""))
    except ValueError:
        return None
    mult = {"Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "Tbyte": 1e12, "byte": 1.0,
            "Kbyte/s": 1e3, "Mbyte/s": 1e6, "Gbyte/s": 1e9, "Tbyte/s": 1e12, "byte/s": 1.0,
            "usecond": 1e3, "msecond": 1e6, "nsecond": 1.0}.get(u, 1.0)
    return x * mult * scale


print("| case | time us | x GiB | L2 read GiB | L2 write GiB | L2 / x | L2 TB/s | L2 % peak "
      "| DRAM GiB r/w | DRAM % peak | L1 hit % | SM % | regs | local ld/st bytes |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
gib = 2.0**30
for head, m in rows:
    parts = head.split()
    r, c = (int(v) for v in parts[2].split("x"))
    xb = r * c * (4 if parts[1] == "fp32" else 2)
    t = num(m, "gpu__time_duration.sum")
    rd = num(m, "lts__t_sectors_op_read.sum", 32)
    wr = num(m, "lts__t_sectors_op_write.sum", 32)
    tot = num(m, "lts__t_sectors.sum", 32)
    dr, dw = num(m, "dram__bytes_read.sum"), num(m, "dram__bytes_write.sum")

    def f(v, d=2, s=1.0):
        return f"{v / s:.{d}f}" if v is not None else "?"

    cfg = parts[3] if len(parts) > 3 else ""
    print(f"| {parts[1]} {parts[2]} {cfg} | {f(t, 1, 1e3)} | {xb / gib:.2f} | {f(rd, 3, gib)} | "
          f"{f(wr, 3, gib)} | {f(tot, 2, xb) if tot else '?'} | "
          f"{f(tot / (t * 1e-9) if tot and t else None, 2, 1e12)} | "
          f"{f(num(m, 'lts__throughput.avg.pct_of_peak_sustained_elapsed'), 1)} | "
          f"{f(dr, 3, gib)}/{f(dw, 3, gib)} | "
          f"{f(num(m, 'dram__throughput.avg.pct_of_peak_sustained_elapsed'), 1)} | "
          f"{f(num(m, 'l1tex__t_sector_hit_rate.pct'), 1)} | "
          f"{f(num(m, 'sm__throughput.avg.pct_of_peak_sustained_elapsed'), 1)} | "
          f"{f(num(m, 'launch__registers_per_thread'), 0)} | "
          f"{f(num(m, 'l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum'), 0)}/"
          f"{f(num(m, 'l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum'), 0)} |")
