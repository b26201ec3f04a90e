#!/usr/bin/env bash
# `ktune kernel check` on the CPU: (1) sizing a large space (5 parameters of 20 values, 3.2M
# configs, two restrictions; --no-compile) and (2) the full check of each example (space, launch,
# NVRTC compile of the default config). Wall time and peak RSS of REPEAT runs each: median and
# min..max. Results: docs/perf/kernel.md#check-cost.
#   bench/kernel/run.sh [REPEAT]        (build first: scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
repeat=${1:-5}
ktune=${KTUNE:-build/tools/ktune-cli/ktune}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo 'extern "C" __global__ void k(float* x) { x[0] = 1; }' >"$work/k.cu"
python3 - "$work/big.json" <<'PY'
import json, sys
v = list(range(1, 21))
spec = {"schema": "ktune.kernel", "version": "1.0.0", "name": "big", "sources": ["k.cu"],
        "kernel": "k", "dimensions": {"N": 10},
        "parameters": {p: {"values": v, "default": 1} for p in "ABCDE"},
        "restrictions": ["A * B <= 200", "C + D + E < 50"],
        "launch": {"grid": [1], "block": ["A + B + C + D + E"]},
        "arguments": [{"name": "x", "kind": "buffer", "dtype": "fp32", "size": "N", "output": True}]}
json.dump(spec, open(sys.argv[1], "w"))
PY
measure() { # label, command...
    local label=$1 t=()
    shift
    for _ in $(seq "$repeat"); do
        /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null
        t+=("$(cat "$work/time")")
    done
    printf '%s\n' "${t[@]}" | python3 -c '
import statistics, sys
rows = [l.split() for l in sys.stdin if l.strip()]
s = [float(r[0]) for r in rows]; m = [int(r[1]) / 1024 for r in rows]
print(f"| {sys.argv[1]} | {statistics.median(s):.2f} ({min(s):.2f}..{max(s):.2f}) | "
      f"{statistics.median(m):.0f} ({min(m):.0f}..{max(m):.0f}) |")' "$label"
}
echo "| check | wall s, median (min..max) | peak RSS MiB, median (min..max) |"
echo "|---|---|---|"
measure "3.2M-config space, --no-compile" "$ktune" kernel check "$work/big.json" --no-compile
for k in matmul reduction stencil; do
    measure "$k example, with NVRTC" "$ktune" kernel check "examples/kernels/$k/$k.json"
done
