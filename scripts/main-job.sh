#!/usr/bin/env bash
# The README's main job: install what is missing, build, then do the real work ktune is for.
# On a GPU it looks at the GPU (and, as they land, profiles and tunes); without one it works on
# bundled real data.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
echo "== building ktune (first time: a few minutes)"
TARGET=ktune_cli scripts/build.sh >/dev/null
ktune=build/tools/ktune-cli/ktune

if "$ktune" device >/tmp/ktune-device.$$ 2>&1; then
    echo "== ktune device"
    cat /tmp/ktune-device.$$
else
    echo "== no GPU here: $(head -1 /tmp/ktune-device.$$)"
    echo "== ktune device --list"
    "$ktune" device --list
fi
rm -f /tmp/ktune-device.$$
