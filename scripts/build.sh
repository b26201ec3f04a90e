#!/usr/bin/env bash
# Configure and build ktune into ${BUILD_DIR:-build}. Extra arguments go to cmake's configure.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
export PATH="/usr/local/cuda/bin:$PATH"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S . -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} "$@"
elif [ $# -gt 0 ]; then
    cmake "$build" "$@"
fi
cmake --build "$build" --parallel "${JOBS:-$(nproc)}" ${TARGET:+--target $TARGET}
