#!/usr/bin/env bash
# Debian packages the GPU image may lack (it has no network), unpacked into the git-ignored
# .carry/root that bench/gpu/run.sh puts on the compiler, linker, loader and PATH search paths.
# Run here, then name .carry in the device call's carry list.
set -euo pipefail
cd "$(dirname "$0")/../.."
rm -rf .carry/debs .carry/root
mkdir -p .carry/debs .carry/root
(cd .carry/debs && apt-get download libxgboost0 libxgboost-dev libdmlc0 libsqlite3-0 \
    libsqlite3-dev libhiredis0.14 libhiredis-dev redis-server redis-tools \
    liblzf1 libjemalloc2)
for f in .carry/debs/*.deb; do dpkg -x "$f" .carry/root; done
rm -rf .carry/debs
du -sh .carry/root
