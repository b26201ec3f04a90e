#!/usr/bin/env bash
# Install what ktune needs to build and is missing, from Debian/Ubuntu packages. Idempotent: on a
# machine that already has everything (the GPU machines, CI's second run) it installs nothing.
set -euo pipefail

need=()
have_header() { # header, extra include dirs...
    local h=$1; shift
    # CPATH: headers unpacked beside the system's (bench/gpu/carry.sh on the offline GPU machines)
    local cpath=${CPATH:-}
    for d in /usr/include /usr/local/include "$@" ${cpath//:/ }; do [ -e "$d/$h" ] && return 0; done
    return 1
}
have_header fmt/format.h || need+=(libfmt-dev)
have_header nlohmann/json.hpp || need+=(nlohmann-json3-dev)
have_header CLI/CLI.hpp || need+=(libcli11-dev)
{ have_header catch2/catch.hpp || have_header catch2/catch_all.hpp; } || need+=(catch2)
have_header zstd.h || need+=(libzstd-dev)
have_header zlib.h || need+=(zlib1g-dev)
have_header sqlite3.h || need+=(libsqlite3-dev)
command -v cmake >/dev/null || need+=(cmake)
command -v ninja >/dev/null || need+=(ninja-build)
command -v g++ >/dev/null || need+=(g++)
if [ "${KTUNE_SETUP_DEV:-0}" = 1 ]; then
    command -v clang-format >/dev/null || need+=(clang-format)
fi
# Optional: never fatal (offline GPU machines have no registry). XGBoost drives the model-guided
# search strategies (CMake disables them without it); simdjson loads the config cache ~16x
# faster than nlohmann (docs/perf/cache.md); rsvg-convert renders the roofline SVG in a test.
optional=()
have_header xgboost/c_api.h || optional+=(libxgboost-dev)
have_header simdjson.h || optional+=(libsimdjson-dev)
# The profile store's PostgreSQL backend (libpq) and the server its tests start in a temp dir.
have_header libpq-fe.h /usr/include/postgresql || optional+=(libpq-dev)
{ command -v initdb >/dev/null || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; } ||
    optional+=(postgresql)
if [ "${KTUNE_SETUP_DEV:-0}" = 1 ]; then
    command -v rsvg-convert >/dev/null || optional+=(librsvg2-bin)
    # The fuzz pass (tests/fuzz/run.sh): clang with its libFuzzer runtime, and lld.
    command -v clang++ >/dev/null || optional+=(clang)
    command -v ld.lld >/dev/null || optional+=(lld)
    # clang-tidy (scripts/tidy.sh): Debian's default, the same LLVM as the fuzz pass's clang.
    command -v clang-tidy >/dev/null || optional+=(clang-tidy)
    ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 ||
        optional+=(libclang-rt-dev)
fi
# The Redis shared cache tier: hiredis builds it, redis-server runs its tests (skipped without).
have_header hiredis/hiredis.h || optional+=(libhiredis-dev)
if [ "${KTUNE_SETUP_DEV:-0}" = 1 ]; then
    command -v redis-server >/dev/null || optional+=(redis-server)
fi

if [ ${#need[@]} -gt 0 ]; then
    echo "ktune setup: installing ${need[*]}"
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    if ! command -v apt-get >/dev/null; then
        echo "ktune setup: no apt-get here; install these yourself: ${need[*]}" >&2
        exit 2
    fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

if [ ${#optional[@]} -gt 0 ] && command -v apt-get >/dev/null; then
    s=""
    [ "$(id -u)" = 0 ] || s="sudo"
    { $s apt-get update -qq && DEBIAN_FRONTEND=noninteractive $s apt-get install -y -qq \
        --no-install-recommends "${optional[@]}"; } >/dev/null 2>&1 ||
        echo "ktune setup: optional ${optional[*]} not installed (ktune builds without them)" >&2
fi

if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
    echo "ktune setup: the CUDA Toolkit (nvcc, CUPTI, NVRTC) is required: install it from" \
         "NVIDIA's packages and put /usr/local/cuda/bin on PATH" >&2
    exit 2
fi
