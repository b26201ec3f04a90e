#!/usr/bin/env bash
# Machine code of op configs, shared by the ops' GPU steps and usable here (no GPU needed):
#   bench/ops/sass.sh BENCH_CONFIGS OUTDIR OP SHAPE DTYPE [SUBSTRING...]
# writes the sources bench_configs assembles (the exact text NVRTC compiles: OUTDIR/<n>.cu,
# OUTDIR/index.txt; BENCH_CONFIGS_SET / BENCH_CONFIGS_NO_DEFAULT apply), compiles each with nvcc
# -cubin -arch=sm_90a -Xptxas -v, and prints per config: registers, spills, and the count of
# each opcode that tells the memory path and the conversions apart (SASS by cuobjdump where the
# toolkit has it, else PTX): 16-bit vs 128-bit shared loads (LDS.U16 / LDS.128), global loads
# and stores, bf16 conversions one or two at a time (F2FP.BF16.F32.PACK_AB; PTX cvt.rn.bf16.f32
# vs cvt.rn.bf16x2.f32), barriers.
set -uo pipefail
[ $# -ge 5 ] || { echo "usage: sass.sh BENCH_CONFIGS OUTDIR OP SHAPE DTYPE [SUBSTRING...]" >&2; exit 2; }
bc=$1 out=$2
shift 2
export PATH="/usr/local/cuda/bin:$PATH"
mkdir -p "$out"
BENCH_CONFIGS_SOURCE_DIR="$out" "$bc" "$@" >/dev/null || exit 1
pat_sass='LDS|STS|LDG|STG|LD\.|ST\.|F2FP|PRMT|MUFU|BAR|SYNCS|UBLKCP|LDSM|ATOM'
pat_ptx='^(ld|st|cvt\.rn|cp\.async|bar|barrier)'
while read -r n cfg; do
    [ "$cfg" = "${cfg#invalid}" ] || { echo "== $n $cfg"; continue; }
    f=$out/$n
    timeout 120 nvcc -cubin -arch=sm_90a -O3 -Xptxas -v -w -o "$f.cubin" "$f.cu" >"$f.log" 2>&1
    echo "== $n $cfg"
    grep -oE "Used [0-9]+ registers|[0-9]+ bytes spill (stores|loads)" "$f.log" | tr '\n' ' '
    echo
    if command -v cuobjdump >/dev/null; then
        cuobjdump -sass "$f.cubin" >"$f.sass" 2>&1
        grep -oE '^\s+/\*[0-9a-f]{4}\*/\s+(@!?U?P[0-9T] )?[A-Z0-9_]+(\.[A-Z0-9_]+)*' "$f.sass" |
            awk '{print $NF}' | grep -E "$pat_sass" | sort | uniq -c | sort -rn | tr '\n' ';'
    else
        timeout 120 nvcc -ptx -arch=sm_90a -O3 -w -o "$f.ptx" "$f.cu"
        grep -oE '^\s+(@%p[0-9]+ )?[a-z][a-z0-9_.:]*' "$f.ptx" | awk '{print $NF}' |
            grep -E "$pat_ptx" | sort | uniq -c | sort -rn | tr '\n' ';'
    fi
    echo
done <"$out/index.txt"
