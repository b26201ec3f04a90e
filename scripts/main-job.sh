#!/usr/bin/env bash
# The README's main job: install what is missing, build, then run the loop for real.
#  - with a GPU: identify it, profile a real program (kernel time per NVTX range), sample the
#    hottest kernels' hardware metrics of a training loop onto the roofline, tune built-in ops
#    (again: cache hits), replay a recorded Hopper space;
#  - without one: the same analysis on bundled real data (PyTorch transformer-layer traces
#    recorded on an H200, one with sampled metrics; fully measured tuning spaces).
# Outputs land in out/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
echo "== building ktune (the first time takes a few minutes)"
mkdir -p out
if ! TARGET="ktune_cli ktune_inject ktune_worker" scripts/build.sh >out/build.log 2>&1; then
    grep -E "error|Error|FAILED" out/build.log | head -20 >&2
    echo "ktune: the build failed; the whole log is out/build.log" >&2
    exit 2
fi
ktune=build/tools/ktune-cli/ktune
mkdir -p out
say() { printf '\n== %s\n' "$*"; }

if "$ktune" device >out/device.txt 2>&1; then
    say "ktune device"
    cat out/device.txt
    say "ktune profile: every kernel of a real program, ranked"
    if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
        "$ktune" profile -o out/transformer.ktrace -- python3 bench/profile/transformer_nvtx.py
        say "ktune top --by nvtx-path: kernel time per NVTX range open at launch"
        "$ktune" top out/transformer.ktrace --by nvtx-path
        say "ktune profile --metrics roofline: why the 10 hottest kernels of a training loop are slow"
        "$ktune" device --measure
        # The 10 hottest kernels of an unprofiled run, then their metrics with no replay: one
        # pass covers all of them, later passes on later training steps.
        "$ktune" profile --no-top -o out/train.ktrace -- python3 bench/metrics/train_loop.py
        hottest=$("$ktune" top out/train.ktrace --json --limit 10 | python3 -c 'import json, re, sys
rows = json.load(sys.stdin)["rows"][:10]
print("^(" + "|".join(re.escape(r["mangled"]) for r in rows) + ")$")')
        "$ktune" profile --metrics roofline --kernels "$hottest" --max-metric-kernels 10 --no-top \
            -o out/train_metrics.ktrace -- python3 bench/metrics/train_loop.py
        "$ktune" roofline out/train_metrics.ktrace --svg out/roofline.svg
    else
        TARGET=profile_workload scripts/build.sh >>out/build.log 2>&1
        "$ktune" profile -o out/workload.ktrace -- build/bench/profile/profile_workload graph 200 5
    fi
    say "ktune tune softmax, two shapes in one process (search, check, time, cache)"
    torch_flag=()
    python3 -c 'import torch' 2>/dev/null && torch_flag=(--vs-torch)
    "$ktune" tune softmax --shape 8192x8192 --shape 4096x32768 --dtype bf16 \
        --cache out/tuned.json "${torch_flag[@]}"
    say "ktune tune transpose 8192x8192 bf16"
    "$ktune" tune transpose --shape 8192x8192 --dtype bf16 --cache out/tuned.json "${torch_flag[@]}"
    say "the same again: cache hits, nothing measured"
    "$ktune" tune softmax --shape 8192x8192 --shape 4096x32768 --dtype bf16 --cache out/tuned.json
    say "ktune ingest + backlog: this run's traces in a profile store (SQLite), what to tune next"
    rm -f out/ktune.db
    "$ktune" ingest --db sqlite:out/ktune.db --objects out/objects --build main-job out/*.ktrace
    "$ktune" backlog --db sqlite:out/ktune.db --limit 10
else
    say "no GPU here ($(head -1 out/device.txt)): working on bundled real data"
    say "ktune top: which kernels own the GPU time of a PyTorch transformer layer (H200)"
    "$ktune" top examples/data/transformer_layer_h200.ktrace --limit 12
    say "ktune top --by nvtx-path: kernel time per NVTX range open at launch (H200 trace)"
    "$ktune" top examples/data/transformer_layer_nvtx_h200.ktrace --by nvtx-path
    "$ktune" export examples/data/transformer_layer_h200.ktrace --format chrome \
        -o out/transformer_layer_h200.trace.json
    echo "(Perfetto-ready timeline written to out/transformer_layer_h200.trace.json)"
    say "ktune roofline: why the 10 hottest kernels are slow (metrics sampled on an H200)"
    "$ktune" roofline tests/data/metrics/h200_transformer_layer.metrics.ktrace \
        --svg out/roofline.svg
    echo "(log-log roofline chart written to out/roofline.svg)"
    say "ktune roofline: which memory level binds (a 17-kernel suite sampled on an H200)"
    "$ktune" roofline tests/data/metrics/h200_suite_levels.metrics.ktrace --latency-pct 60
    say "ktune roofline: a PyTorch training loop's 10 hottest kernels, no replay (H200, one pass per step)"
    "$ktune" roofline tests/data/metrics/h200_train_launches.metrics.ktrace
    say "ktune ops: the built-in tunable ops"
    "$ktune" ops
    say "ktune ingest + backlog: the bundled traces in a profile store (SQLite), what to tune next"
    store_dir=$(mktemp -d)
    "$ktune" ingest --db "sqlite:$store_dir/ktune.db" --build bundled examples/data/*.ktrace \
        tests/data/metrics/h200_transformer_layer.metrics.ktrace
    "$ktune" ingest --db "sqlite:$store_dir/ktune.db" examples/data/transformer_layer_h200.ktrace
    "$ktune" backlog --db "sqlite:$store_dir/ktune.db" --limit 10
    rm -rf "$store_dir"
fi

say "ktune tune --space: search strategies replayed on a softmax space brute-forced on an H200"
"$ktune" tune --space examples/data/spaces/softmax_bf16_8192x8192_H200.json --strategy auto \
    --repeat 20
say "and on a public GEMM space (CLBlast Xgemm, RTX 3090)"
"$ktune" tune --space examples/data/spaces/gemm_RTX_3090.json.gz --strategy auto --repeat 10 \
    --budget 500
say "ktune device --list: the roofs ktune knows"
"$ktune" device --list
