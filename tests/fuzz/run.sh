#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and fuzzes each for SECONDS, starting
# from its committed corpus (tests/fuzz/corpus/<target>); a crash, hang (>30 s an input) or
# allocation beyond the limit fails the run and leaves the input in $FUZZ_DIR/artifacts/<target>.
#   tests/fuzz/run.sh [SECONDS] [TARGET...]      default: 25 s each, every target
# FUZZ_SEED=N fixes libFuzzer's seed, so a short pass (the test script's) explores the same inputs
# on every machine instead of failing at random on a bug it happened to reach that time; unset, a
# fresh seed each run, which is what a long exploratory run wants.
# Without clang (and its libFuzzer runtime) it says so and exits 0: CI machines without clang
# still run every corpus through the g++ build (the fuzz_replay_* CTest tests).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/usr/local/cuda/bin:$PATH" # CUDAToolkit's headers, as scripts/build.sh finds them
seconds=${1:-25}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(cache_reader trace_reader metrics_chunk results suite tune_plan replay_read kernel_spec launch_files)
dir=${FUZZ_DIR:-build/fuzz}
if ! command -v clang++ >/dev/null ||
    ! echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' |
        clang++ -x c++ -fsanitize=fuzzer - -o /dev/null 2>/dev/null; then
    echo "tests/fuzz/run.sh: no clang with libFuzzer here (apt-get install clang lld); skipped"
    exit 0
fi
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
[ -f "$dir/CMakeCache.txt" ] || CXX=clang++ cmake -S tests/fuzz -B "$dir" "${gen[@]}" >/dev/null
cmake --build "$dir" --parallel "${JOBS:-$(nproc)}" --target "${targets[@]/%/_fuzz}"
status=0
for t in "${targets[@]}"; do
    work="$dir/corpus-work/$t" art="$dir/artifacts/$t/"
    mkdir -p "$work" "$art"
    log="$dir/$t.log" seeds="tests/fuzz/corpus/$t"
    [ -d "$seeds" ] || seeds="tests/fuzz/corpus/${t%_reader}" # cache_reader: corpus/cache
    # 512 MiB per allocation: a reader that sizes a buffer by a length field is a finding.
    if ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=0 \
        "$dir/${t}_fuzz" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 \
        -malloc_limit_mb=512 -max_len=65536 -print_final_stats=1 -artifact_prefix="$art" \
        ${FUZZ_SEED:+-seed="$FUZZ_SEED"} \
        "$work" "$seeds" >"$log" 2>&1; then
        echo "$t: $(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$') runs, no finding"
    else
        echo "$t: FINDING (see $log and $art)"
        status=1
    fi
done
exit $status
