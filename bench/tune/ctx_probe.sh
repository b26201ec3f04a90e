#!/usr/bin/env bash
# GPU machine: what a fresh process's GPU open (cuInit) and context cost, under settings that
# might move them (CUDA_DEVICE_MAX_CONNECTIONS: hardware channels made with the context;
# CUDA_MODULE_LOADING; a created vs the primary context; blocking sync), and with another
# process holding the GPU open. ROUNDS interleaved rounds, one fresh process per measurement.
# Writes $OUT/ctx_probe.jsonl and $OUT/ctx_probe.txt (medians, min..max per variant).
#   OUT=/tmp/o ROUNDS=5 bash bench/tune/ctx_probe.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:?set OUT}
ROUNDS=${ROUNDS:-5}
bin=${BIN:-/tmp/ktune_ctx_probe}
nvcc -O2 -std=c++17 -o "$bin" bench/tune/ctx_probe.cpp -lcuda
log=$OUT/ctx_probe.jsonl
: >"$log"
variant() { # name, then env assignments and arguments for ctx_probe
    local name=$1
    shift
    env "$@" | sed "s/^{/{\"variant\": \"$name\", /" >>"$log" || echo "$name failed" >&2
}
for _ in $(seq "$ROUNDS"); do
    variant base "$bin" primary
    variant connections_1 CUDA_DEVICE_MAX_CONNECTIONS=1 "$bin" primary
    variant connections_32 CUDA_DEVICE_MAX_CONNECTIONS=32 "$bin" primary
    variant eager_modules CUDA_MODULE_LOADING=EAGER "$bin" primary
    variant created_ctx "$bin" create
    variant created_blocking "$bin" create-blocking
    "$bin" hold 30 &
    holder=$!
    sleep 1.5 # the holder's context is up
    variant gpu_held_elsewhere "$bin" primary
    variant gpu_held_connections_1 CUDA_DEVICE_MAX_CONNECTIONS=1 "$bin" primary
    kill "$holder" 2>/dev/null || true
    wait "$holder" 2>/dev/null || true
    sleep 0.5
done
python3 - "$log" >"$OUT/ctx_probe.txt" <<'PY'
import json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    rows.setdefault(r["variant"], []).append(r)
print("| variant | n | cuInit ms | context ms | first alloc+memset+sync ms | total ms |")
print("|---|---|---|---|---|---|")
for v, rs in rows.items():
    def cell(k):
        xs = [r[k] for r in rs]
        return f"{statistics.median(xs):.1f} ({min(xs):.1f}..{max(xs):.1f})"
    print(f"| {v} | {len(rs)} | {cell('init_ms')} | {cell('context_ms')} | "
          f"{cell('first_work_ms')} | {cell('total_ms')} |")
PY
cat "$OUT/ctx_probe.txt"
