#!/usr/bin/env bash
# GPU test: `ktune profile` on a program that already holds CUPTI (cupti_holder). Expect a clear
# message, the program's own output and exit code, and no trace. Exit 77 (skipped) without a GPU.
#   second_client.sh <ktune> <cupti_holder> <scratch dir>
set -u
nvidia-smi -L >/dev/null 2>&1 || exit 77
out=$("$1" profile -o "$3/second_client.ktrace" -- "$2" 2>&1)
rc=$?
echo "$out"
echo "exit code $rc"
fail=0
[ $rc -eq 0 ] || { echo "FAIL: expected the program's exit code 0"; fail=1; }
grep -q "holder ran: 42" <<<"$out" || { echo "FAIL: the program did not run"; fail=1; }
grep -q "another CUPTI client is active" <<<"$out" || { echo "FAIL: no clear message"; fail=1; }
exit $fail
