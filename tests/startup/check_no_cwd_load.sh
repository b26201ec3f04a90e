#!/usr/bin/env bash
# ktune run inside an untrusted folder loads no library from it: the folder holds a decoy (exits
# 99 when loaded) under the name of every library ktune links or opens, and the dynamic
# linker's own log (LD_DEBUG=libs) must show no attempt to open a file there.
#
#   check_no_cwd_load.sh KTUNE DECOY_SO SOURCE_DIR
set -euo pipefail
ktune=$(realpath "$1") decoy=$(realpath "$2") src=$(realpath "$3")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

names=$(readelf -d "$ktune" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
names+=" libxgboost.so.0 libxgboost.so libnvrtc.so.13 libnvrtc.so.12 libcublasLt.so.13"
names+=" libcublasLt.so.12 libcupti.so.13 libcuda.so.1"
for n in $names; do cp "$decoy" "$dir/$n"; done
cp "$src/examples/data/transformer_layer_h200.ktrace" "$dir/x.ktrace"
cp "$src/tests/data/tune/kt_small.json" "$dir/space.json"

fail=0
run() { # a ktune command line, run in the folder
    local log=$dir/ld.log rc=0
    (cd "$dir" && LD_DEBUG=libs LD_DEBUG_OUTPUT="$log" "$ktune" "$@" >/dev/null 2>"$dir/err") ||
        rc=$?
    if [ "$rc" -ge 99 ]; then # 99: the decoy; 126, 127: not run; above 128: a signal
        echo "FAIL: ktune $*: exit $rc: $(head -c 300 "$dir/err")"
        fail=1
    fi
    if grep -q DECOY "$dir/err"; then
        echo "FAIL: ktune $*: loaded a decoy library from the working directory"
        fail=1
    fi
    # "trying file=NAME" with a relative NAME, or one inside the folder, is a search of it.
    if cat "$log".* 2>/dev/null | grep -E "trying file=([^/]|$dir/)"; then
        echo "FAIL: ktune $*: the dynamic linker searched the working directory"
        fail=1
    fi
    rm -f "$log".*
    echo "ktune $*: exit $rc"
}
run --version
run top x.ktrace
# The model strategy opens XGBoost at run time (tune/xgboost_api.cpp).
run tune --space space.json --strategy model --repeat 1 --seed 1
exit $fail
