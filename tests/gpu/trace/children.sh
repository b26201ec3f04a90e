#!/usr/bin/env bash
# GPU test: `ktune profile` on a launcher whose children run CUDA (a shell that starts two CUDA
# programs, one in the background). Each child writes its own trace, <stem>.<pid>.ktrace, with
# its own kernels; the launcher itself never initialises CUDA and writes none; the launcher's
# exit code is forwarded. Exit 77 (skipped) without a GPU.
#   children.sh <ktune> <trace_child> <scratch dir>
set -u
nvidia-smi -L >/dev/null 2>&1 || exit 77
k=$1 child=$2 dir=$3/children
rm -rf "$dir" && mkdir -p "$dir"
"$k" profile --no-top -o "$dir/mp.ktrace" -- sh -c "'$child' 7 0 & '$child' 5 0; wait; exit 4"
rc=$?
echo "exit code $rc"
fail=0
[ $rc -eq 4 ] || { echo "FAIL: expected the launcher's exit code 4"; fail=1; }
[ ! -e "$dir/mp.ktrace" ] || { echo "FAIL: the launcher (no CUDA) wrote a trace"; fail=1; }
traces=$(ls "$dir" | grep -c '^mp\.[0-9]*\.ktrace$')
echo "child traces: $traces"
[ "$traces" -eq 2 ] || { echo "FAIL: expected 2 child traces"; fail=1; }
counts=""
for f in "$dir"/mp.*.ktrace; do
    out=$("$k" top "$f" --json)
    echo "$out" | head -c 400
    echo
    n=$(echo "$out" | grep -o '"count": *[0-9]*' | head -1 | grep -o '[0-9]*$')
    echo "$out" | grep -q child_kernel || { echo "FAIL: $f lacks child_kernel"; fail=1; }
    counts="$counts $n"
done
echo "kernel counts:$counts"
for want in 5 7; do
    grep -qw "$want" <<<"$counts" || { echo "FAIL: no trace with $want kernels"; fail=1; }
done
exit $fail
