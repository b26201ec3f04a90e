#!/usr/bin/env bash
# The profile store's claims (docs/perf/store.md), on the CPU. Traces and databases go to
# ${STORE_BENCH_DIR:-/tmp/ktune_store_bench} (several GB for the fleet step; removed at the end).
#   BUILD_DIR=build bench/store/run.sh              # all claims
#   bench/store/run.sh ingest|fleet|postgres        # one
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD_DIR:-build}
bin="$build/bench/store/store_bench"
[ -x "$bin" ] || cmake --build "$build" --target store_bench
dir=${STORE_BENCH_DIR:-/tmp/ktune_store_bench}
mkdir -p "$dir"
step=${1:-all}
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
if [ "$step" = all ] || [ "$step" = ingest ]; then
    # Claim: a 10 M-kernel-record trace ingested in <= 5 s on one core.
    [ -f "$dir/10M.ktrace" ] || "$bin" gen "$dir/10M.ktrace" 10000000 7
    for i in 1 2 3; do
        rm -f "$dir/ingest.db"*
        taskset -c 0 "$bin" ingest "$dir/ingest.db" "$dir/10M.ktrace"
    done
fi
if [ "$step" = all ] || [ "$step" = fleet ]; then
    # Claims: backlog over 1,000 runs holding >= 100 M records in <= 1 s; DB <= 5 % of the
    # traces; fleet quantiles from merged sketches within 1 % of the exact ones.
    taskset -c 0 "$bin" fleet "$dir/fleet" "${RUNS:-1000}" "${RECORDS:-100000}" 5
fi
if [ "$step" = all ] || [ "$step" = postgres ]; then
    # Claim: 16 concurrent ingesters x 100 traces into PostgreSQL: every run present once.
    bench/store/pg_concurrent.sh "$bin" "$dir/pg" 16 100
fi
[ "${KEEP:-0}" = 1 ] || rm -rf "$dir"
