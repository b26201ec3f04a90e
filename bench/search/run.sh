#!/usr/bin/env bash
# Every ktune strategy x every bundled space (20 seeded runs, budget 500) plus the held-out
# spaces (the Hopper recordings, synthetic ones from make_synthetic.py: heldout.sh), then Kernel
# Tuner's strategies on the same recordings in its simulation mode (pip install kernel_tuner;
# 10 runs each: its simulation is ~100x slower per run), one TSV table each; plus the sampling
# bench of a 1.1e9-point constrained space.
# Usage: BUILD_DIR=build [REPEAT=20 KT_REPEAT=10 BUDGET=500 KT_STRATEGIES=a,b] bench/search/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD_DIR:-build}
repeat=${REPEAT:-20}
kt_repeat=${KT_REPEAT:-10}
budget=${BUDGET:-500}
kt_strategies=${KT_STRATEGIES:-random_sample,genetic_algorithm,simulated_annealing,pso,diff_evo,greedy_ils,dual_annealing}
synth=$(mktemp -d)
trap 'rm -rf "$synth"' EXIT
d=examples/data/spaces
targets=("$d"/{convolution_A100,convolution_A4000,dedispersion_MI250X,gemm_RTX_3090,gemm_RTX_2080_Ti,pnpoly_RTX_3090}.json.gz)
"$build/bench/search/bench_search_sampling" 1000
# The ktune table over the target and held-out sets (heldout.sh also writes both geometric
# means of the ratio to random, on stderr); the raw TSV goes to stdout for merging.
BUILD_DIR="$build" REPEAT="$repeat" BUDGET="$budget" HELDOUT_DIR="$synth" RAW="$synth/ktune.tsv" \
    STRATEGIES=random,genetic,annealing,portfolio,tpe,auto bench/search/heldout.sh >&2
cat "$synth/ktune.tsv"
if python3 -c "import kernel_tuner" 2>/dev/null; then
    # convolution_A100_T4 is the T4 form of convolution_A100: Kernel Tuner reads only its cache.
    python3 bench/search/kernel_tuner_replay.py --repeat "$kt_repeat" --budget "$budget" \
        --strategies "$kt_strategies" "${targets[@]}" "$d"/dedispersion_A100.json.gz \
        "$d"/*H200*.json | tail -n +1
else
    echo "# kernel_tuner not installed (pip install kernel_tuner): its rows are skipped" >&2
fi
