#!/usr/bin/env bash
# The config-cache claims (docs/perf/cache.md). Needs no GPU.
#   BUILD_DIR=build bench/cache/run.sh            # all claims
#   FUZZ_SECONDS=600 bench/cache/run.sh fuzz      # also the libFuzzer run (clang)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD_DIR:-build}
bin="$build/bench/cache/cache_bench"
[ -x "$bin" ] || cmake --build "$build" --target cache_bench
redis_bin="$build/bench/cache/cache_redis_bench"
[ -x "$redis_bin" ] || cmake --build "$build" --target cache_redis_bench
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
"$bin" lookup 100000
"$bin" threads 100000
"$bin" load 100000
"$bin" load 200000 minified      # the same document on one line, as jq -c writes it
"$bin" stores 16 500
"$bin" kill 100
# The Redis shared tier (needs redis-server and a build with hiredis).
if command -v redis-server >/dev/null; then
    "$redis_bin" fleet 16 1000
    "$redis_bin" outage 10
else
    echo "skipped the Redis shared tier: redis-server is not installed"
fi
if [ "${1:-}" = fuzz ]; then
    fb=${FUZZ_BUILD_DIR:-build-fuzz}
    CXX=clang++ cmake -S tests/fuzz -B "$fb" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build "$fb"
    mkdir -p "$fb/corpus"
    # The minimised corpus of earlier runs (libFuzzer -merge=1), as an archive of ~1600 inputs.
    tar xzf tests/fuzz/corpus/cache_min.tar.gz -C "$fb/corpus"
    "$fb/cache_reader_fuzz" -max_total_time="${FUZZ_SECONDS:-600}" -print_final_stats=1 \
        -artifact_prefix="$fb/" "$fb/corpus" tests/fuzz/corpus/cache
fi
