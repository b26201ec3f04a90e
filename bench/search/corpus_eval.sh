#!/usr/bin/env bash
# The search targets on one split of the corpus (bench/search/corpus/manifest.tsv): ktune's
# strategies at budgets 100, 500 and 1000 (20 seeded runs, each ending at its first config
# within 1.05x of the optimum), optionally the chosen Kernel Tuner strategy (5 runs, budget
# 1000), then evaluate.py's three targets against random search's exact median and mean.
# Usage: BUILD_DIR=build [REPEAT=20 STRATEGIES=auto KT=1 KT_REPEAT=5 OUT=dir]
#        bench/search/corpus_eval.sh dev|test
set -euo pipefail
cd "$(dirname "$0")/../.."
split=${1:?usage: corpus_eval.sh dev|test}
build=${BUILD_DIR:-build}
out=${OUT:-/tmp/ktune_search_eval}
mkdir -p "$out"
mapfile -t files < <(bench/search/corpus.sh "$split")
"$build/bench/search/bench_search_replay" --repeat "${REPEAT:-20}" --seed 1 --budget 100,500,1000 \
    --stop-at-target --strategies "${STRATEGIES:-auto}" "${files[@]}" >"$out/$split.ktune.tsv"
tsv=("$out/$split.ktune.tsv")
kt=$(grep '^# Kernel Tuner baseline' bench/search/corpus/manifest.tsv | sed 's/.*: \([a-z_]*\)\..*/\1/')
if [ "${KT:-0}" = 1 ]; then
    python3 bench/search/kernel_tuner_replay.py --repeat "${KT_REPEAT:-5}" --budget 1000 \
        --run-timeout 300 --strategies "$kt" "${files[@]}" >"$out/$split.kt.tsv"
fi
[ -f "$out/$split.kt.tsv" ] && tsv+=("$out/$split.kt.tsv")
for s in $(echo "${STRATEGIES:-auto}" | tr , " "); do
    python3 bench/search/evaluate.py "${tsv[@]}" --strategy "$s" --kt "KT:$kt"
done
