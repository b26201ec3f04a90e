#!/usr/bin/env bash
# clang-format every C++ source of the project; --check fails on any difference instead.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files -co --exclude-standard -- '*.hpp' '*.cpp' '*.cu' '*.cuh' \
    ':!:examples/data/**' ':!:tests/data/**')
[ ${#files[@]} -gt 0 ] || exit 0
if [ "${1:-}" = --check ]; then
    clang-format --dry-run -Werror "${files[@]}"
    echo "format check: ${#files[@]} files clean"
else
    clang-format -i "${files[@]}"
fi
