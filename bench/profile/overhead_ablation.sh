#!/usr/bin/env bash
# Which part of ktune's set-up costs launch overhead? Same workloads, 5 interleaved processes
# per variant: all record kinds vs kernels only, CUPTI subscriber slot held vs released.
#   bash bench/profile/overhead_ablation.sh <build-dir> <out.jsonl>
set -u
k=$1/tools/ktune-cli/ktune b=$1/bench/profile j=$2 tmp=${TMPDIR:-/tmp}/ktune_ablation
mkdir -p "$tmp"
variants=("all|" "kernel|--record kernel" "all_release|HOLD0" "kernel_release|--record kernel HOLD0")
run_variant() { # name args... -- cmd...
    local name=$1 rec=$2; shift 2
    local hold=1 args=()
    [[ $rec == *HOLD0* ]] && hold=0
    [[ $rec == --record* ]] && args=(--record kernel)
    KTUNE_HOLD_SUBSCRIPTION=$hold $k profile --no-top -o "$tmp/a.ktrace" "${args[@]}" -- "$@" 2>/dev/null |
        sed "s/}\$/,\"mode\":\"ktune_$name\"}/"
}
for rep in 1 2 3 4 5; do
    for w in "tiny 20000" "graph 1000 20"; do
        $b/profile_workload $w | sed 's/}$/,"mode":"base"}/' >>"$j"
        for v in "${variants[@]}"; do run_variant "${v%%|*}" "${v#*|}" $b/profile_workload $w >>"$j"; done
    done
    python3 bench/profile/torch_overhead.py base >>"$j" 2>/dev/null
    for v in "${variants[@]}"; do
        run_variant "${v%%|*}" "${v#*|}" python3 bench/profile/torch_overhead.py base x |
            sed 's/"mode": "x", //' >>"$j"
    done
done
