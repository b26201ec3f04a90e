#!/usr/bin/env bash
# Every ktune strategy x every bundled space (20 seeded runs, budget 500), then Kernel Tuner's
# strategies on the same recordings (pip install kernel_tuner), one TSV table; plus the
# sampling bench of a 1.1e9-point constrained space. Usage: BUILD_DIR=build bench/search/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD_DIR:-build}
repeat=${REPEAT:-20}
budget=${BUDGET:-500}
spaces=(examples/data/spaces/{convolution_A100,convolution_A4000,dedispersion_MI250X,gemm_RTX_3090,gemm_RTX_2080_Ti,pnpoly_RTX_3090,dedispersion_A100,convolution_A100_T4}.json.gz)
"$build/bench/search/bench_search_sampling" 1000
"$build/bench/search/bench_search_replay" --repeat "$repeat" --budget "$budget" "${spaces[@]}"
if python3 -c "import kernel_tuner" 2>/dev/null; then
    python3 bench/search/kernel_tuner_replay.py --repeat "$repeat" --budget "$budget" \
        "${spaces[@]:0:6}" | tail -n +1
else
    echo "# kernel_tuner not installed (pip install kernel_tuner): its rows are skipped" >&2
fi
