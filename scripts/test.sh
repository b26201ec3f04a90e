#!/usr/bin/env bash
# The README's test command: install what is missing, build, run every test (GPU tests run where
# a GPU exists and are reported as skipped elsewhere), then the sanitizer build of the unit
# tests, the format check, clang-tidy and the fuzz pass. Set KTUNE_QUICK=1 to skip those.
set -euo pipefail
cd "$(dirname "$0")/.."
KTUNE_SETUP_DEV=1 scripts/setup.sh
scripts/build.sh -DKTUNE_WERROR=ON
echo "== tests of the main build (at ${SECONDS} s)"
(cd build && ctest --output-on-failure --timeout 900 -j "${JOBS:-$(nproc)}")

if [ "${KTUNE_QUICK:-0}" != 1 ]; then
    echo "== ASan+UBSan build of the unit tests (at ${SECONDS} s)"
    BUILD_DIR=build-asan BUILD_TYPE=Debug scripts/build.sh -DKTUNE_SANITIZE=ON -DKTUNE_WERROR=ON \
        -DKTUNE_BUILD_BENCH=OFF -DKTUNE_BUILD_EXAMPLES=OFF -DKTUNE_BUILD_GPU_TESTS=OFF \
        -DKTUNE_CHECK_HEADERS=OFF
    # cudart keeps allocations until process teardown, which LeakSanitizer would report.
    (cd build-asan && ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        ctest --output-on-failure -L unit -LE "install|nvrtc" --timeout 900 -j "${JOBS:-$(nproc)}")
    echo "== format check (at ${SECONDS} s)"
    scripts/format.sh --check
    # The files changed since the merge-base with main plus a rotating subset (the whole tree
    # costs ~6.5 min on two idle cores; scripts/tidy.sh --all checks it).
    echo "== clang-tidy (at ${SECONDS} s)"
    scripts/tidy.sh
    # Each reader fuzzed briefly from its corpus (skipped where clang has no libFuzzer): about
    # a minute to build the seven targets and 5 s each (10 s each before clang-tidy took its
    # ~45 s of CI's budget; KTUNE_FUZZ_SECONDS=10 restores it).
    echo "== fuzz pass (at ${SECONDS} s)"
    FUZZ_DIR=build-fuzz FUZZ_SEED="${KTUNE_FUZZ_SEED:-1}" tests/fuzz/run.sh "${KTUNE_FUZZ_SECONDS:-5}"
fi
echo "== all checks passed in ${SECONDS} s"
