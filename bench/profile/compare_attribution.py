"""Do two traces of the same program attribute the same kernels to the same NVTX ranges?

    python3 compare_attribution.py a.csv b.csv     # ktune export --format csv of each trace

Kernels are paired in start order (two runs of one deterministic program launch the same
sequence). Prints the kernels per range in each, and the pairs whose name or range differ.
Exit code 0: same names and ranges in the same order; 1: they differ.
"""
import collections
import csv
import sys


def kernels(path):
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["kind"] == "kernel"]
    rows.sort(key=lambda r: int(r["start_ns"]))
    return [(r["name"], r["nvtx"]) for r in rows]


a, b = kernels(sys.argv[1]), kernels(sys.argv[2])
print(f"kernels: {len(a)} vs {len(b)}")
ca = collections.Counter(n for _, n in a)
cb = collections.Counter(n for _, n in b)
for rng in sorted(set(ca) | set(cb)):
    print(f"  {rng or '(no range)'}: {ca[rng]} vs {cb[rng]}")
diff = [(i, x, y) for i, (x, y) in enumerate(zip(a, b)) if x != y]
for i, x, y in diff[:10]:
    print(f"  #{i}: {x} vs {y}")
print(f"differing kernels: {len(diff) + abs(len(a) - len(b))}")
sys.exit(0 if not diff and len(a) == len(b) else 1)
