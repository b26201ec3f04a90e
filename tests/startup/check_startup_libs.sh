#!/usr/bin/env bash
# The heavy libraries are opened where they are used, never at start-up: `ktune --version`,
# `ktune top` and `ktune cache get` map none of cuBLASLt, NVRTC, XGBoost, nvperf_host, libpq (with
# OpenSSL, Kerberos and LDAP) or hiredis (the dynamic linker's log, LD_DEBUG=files, names every
# object it maps). A model-strategy replay must map XGBoost: the check sees a library where one
# is loaded.
#
#   check_startup_libs.sh KTUNE SOURCE_DIR WITH_XGBOOST(ON|OFF)
set -euo pipefail
ktune=$(realpath "$1") src=$(realpath "$2") with_xgboost=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
heavy='lib(cublasLt|cublas|nvrtc|xgboost|nvperf_host|pq|hiredis|ssl|crypto|ldap[^ ]*|gssapi_krb5)\.so'

mapped() { # the objects the dynamic linker maps for one ktune command line
    rm -f "$dir"/ld.*
    LD_DEBUG=files LD_DEBUG_OUTPUT="$dir/ld" "$ktune" "$@" >/dev/null 2>&1 || true
    cat "$dir"/ld.* | sed -n 's/.*file=\([^ ]*\) \[0\];  \(needed\|dynamically loaded\) by.*/\1/p' |
        sort -u
}

fail=0
check_light() {
    local libs
    libs=$(mapped "$@")
    grep -q 'libc\.so' <<<"$libs" || { echo "FAIL: no LD_DEBUG log for ktune $*"; fail=1; }
    if grep -E "$heavy" <<<"$libs"; then
        echo "FAIL: ktune $* maps the libraries above at start-up"
        fail=1
    fi
    echo "ktune $*: maps $(wc -l <<<"$libs") libraries: $(tr '\n' ' ' <<<"$libs")"
}
check_light --version
check_light top "$src/examples/data/transformer_layer_h200.ktrace"
check_light cache get softmax --shape 8192x8192 --dtype bf16 -f "$src/tests/data/cache/small.json"

if [ "$with_xgboost" = ON ]; then
    libs=$(mapped tune --space "$src/tests/data/tune/kt_small.json" --strategy model --repeat 1 \
        --seed 1)
    if grep -q 'libxgboost' <<<"$libs"; then
        echo "ktune tune --strategy model: loads $(grep libxgboost <<<"$libs" | head -1)"
    else
        echo "FAIL: the model strategy did not load XGBoost (or the check cannot see it)"
        fail=1
    fi
fi
exit $fail
