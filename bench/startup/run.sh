#!/usr/bin/env bash
# Start-up cost of the commands that do little work (docs/perf/startup.md): wall time
# and peak RSS of `ktune --version`, `ktune top` on a small bundled trace and `ktune cache get`
# (cache get*: the key's environment from this machine),
# each run RUNS times (default 20) after one warm-up; prints median and min..max. Needs no GPU.
#
#   bench/startup/run.sh [KTUNE]          # default: build/tools/ktune-cli/ktune
#   RUNS=50 bench/startup/run.sh /usr/local/bin/ktune
set -euo pipefail
cd "$(dirname "$0")/../.."
ktune=${1:-${BUILD_DIR:-build}/tools/ktune-cli/ktune}
runs=${RUNS:-20}
[ -x "$ktune" ] || { echo "no ktune at $ktune: build it (TARGET=ktune_cli scripts/build.sh)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One command: RUNS rows of "wall_us peak_rss_kb": wall from the shell around GNU time (so it
# includes starting time itself, ~1 ms), peak RSS of the command from GNU time.
measure() {
    "$@" >/dev/null 2>&1 || true # warm-up: page cache, dynamic linker cache
    for ((i = 0; i < runs; i++)); do
        local t0 t1
        t0=${EPOCHREALTIME/./} # microseconds, read without a fork (bash >= 5)
        /usr/bin/time -f %M -o "$tmp/rss" "$@" >/dev/null 2>&1 || true
        t1=${EPOCHREALTIME/./}
        echo "$((t1 - t0)) $(tail -1 "$tmp/rss")"
    done
}

# "median (min..max)" of one column of the rows on stdin, scaled by $2.
summary() {
    sort -n -k"$1","$1" | awk -v c="$1" -v s="$2" -v u="$3" '
        { v[NR] = $c / s }
        END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
              printf "%.1f %s (%.1f..%.1f)", m, u, v[1], v[NR] }'
}

report() {
    local name=$1
    shift
    measure "$@" >"$tmp/rows"
    printf '%-12s wall %s   peak RSS %s\n' "$name" "$(summary 1 1000 ms <"$tmp/rows")" \
        "$(summary 2 1024 MiB <"$tmp/rows")"
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "ktune: $ktune ($("$ktune" --version)), $runs runs each, medians (min..max)"
report --version "$ktune" --version
report top "$ktune" top examples/data/transformer_layer_h200.ktrace
# A hit for a key given in full (no GPU query), and a key for this machine (queries the GPU
# through the CUDA runtime; without a GPU that is the usage error that says what to give).
report 'cache get' "$ktune" cache get gemm --shape 1024x1024 --dtype fp16 --op-version v3 \
    --arch sm_90 --toolkit 13.0 --driver 580 -f tests/data/cache/small.json
report 'cache get*' "$ktune" cache get softmax --shape 8192x8192 --dtype bf16 \
    -f tests/data/cache/small.json
