# Roofline verdicts without replay on a Llama-style layer (bench/metrics/llama_layer.py), forward
# and training step, against ncu's SpeedOfLight rule (docs/perf/metrics.md, "Llama layer").
# Sourced by bench/gpu/run.sh: `bash bench/gpu/run.sh build llama` (or `llama_build llama`, which
# builds only the CLI and the injection library). ~3 min on an H100. Results: $OUT/llama.txt (the
# tables) and $OUT/llama.tgz (traces, SVGs, JSON, CSVs, logs).

# Only what step_llama needs (the CLI and libktune_inject.so): a fresh machine builds in ~1 min.
step_llama_build() {
    nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv |
        tee -a "${summary:-/dev/null}"
    if [ -d .carry/root ]; then
        export CMAKE_PREFIX_PATH=$PWD/.carry/root/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
        export CPATH=$PWD/.carry/root/usr/include${CPATH:+:$CPATH}
        export LIBRARY_PATH=$PWD/.carry/root/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}
        export LD_LIBRARY_PATH=$PWD/.carry/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    fi
    BUILD_DIR=${BUILD_DIR:-build-gpu} BUILD_TYPE=Release TARGET="ktune_cli ktune_inject" \
        scripts/build.sh -DKTUNE_WERROR=OFF -DKTUNE_BUILD_TESTS=OFF -DKTUNE_BUILD_EXAMPLES=OFF -DKTUNE_BUILD_BENCH=OFF \
        >"${OUT:-/tmp}/build.log" 2>&1 || { tail -40 "${OUT:-/tmp}/build.log"; return 1; }
    echo "build (ktune_cli, ktune_inject): ok" | tee -a "${summary:-/dev/null}"
}

step_llama() {
    local build=${BUILD_DIR:-build-gpu} out=${OUT:-/tmp/ktune-out}
    local ktune="$PWD/$build/tools/ktune-cli/ktune" py=bench/metrics/llama_layer.py
    local w=/tmp/ktune-llama txt="$out/llama.txt" t mode steps
    local sol=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
    sol+=,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed
    rm -rf "$w" && mkdir -p "$w" "$out"
    {
        echo "# step_llama $(date -u +%Y-%m-%dT%H:%MZ)"
        nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
        python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
        ncu --version | tail -1
    } 2>&1 | tee -a "$txt"
    for mode in forward train; do
        steps=16
        [ $mode = train ] && steps=20
        t=$EPOCHREALTIME
        # The passes as CUPTI reports them (docs/perf/metrics.md#llama-layer: the forward's
        # sequences ended after pass 0).
        KTUNE_METRICS_LOG=1 timeout 90 "$ktune" profile --metrics roofline --replay launches --cache-control all \
            --max-metric-kernels 40 --max-per-kernel 1 --no-top -o "$w/$mode.ktrace" -- \
            python3 "$py" $mode $steps >"$w/${mode}_profile.log" 2>&1
        echo "$mode ktune profile --metrics roofline --replay launches: rc $? in" \
            "$(awk -v a="$t" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.2f", b-a}') s" | tee -a "$txt"
        grep 'ktune: metrics' "$w/${mode}_profile.log" | grep -v 'metrics log' | tail -3 |
            tee -a "$txt"
        grep 'metrics log: stop' "$w/${mode}_profile.log" | sed 's/ (.*//' | sort | uniq -c |
            sort -rn | head -8 | tee -a "$txt"
        "$ktune" top "$w/$mode.ktrace" --json --limit 1000 >"$w/${mode}_top.json" 2>"$w/${mode}_top.err"
        "$ktune" top "$w/$mode.ktrace" --limit 25 >"$w/${mode}_top.txt" 2>&1
        "$ktune" roofline "$w/$mode.ktrace" --latency-pct 60 --json >"$w/${mode}_roofline.json" \
            2>"$w/${mode}_roofline.err"
        "$ktune" roofline "$w/$mode.ktrace" --latency-pct 60 --svg "$w/${mode}_roofline.svg" \
            --dump-metrics "$w/${mode}_metrics.json" >"$w/${mode}_roofline.txt" 2>&1
        head -60 "$w/${mode}_roofline.txt" >>"$txt"
        t=$EPOCHREALTIME
        # ncu profiles the launches of the 2 warm-up iterations (STEPS 0) of the kernels ktune's
        # trace ranks at >= 2 % of kernel time: every launch of the training step did not finish
        # in 100 s on the H100 (kernel replay saves and restores the optimizer state each pass).
        local re
        re=$(python3 -c 'import json, re, sys
rows = [r for r in json.load(open(sys.argv[1]))["rows"] if r["name"] not in ("WaitNs", "ktune_l2_sweep")]
total = sum(r["total_ns"] for r in rows) or 1
hot = [r for r in rows if r["total_ns"] / total >= 0.02]
print("^(" + "|".join(re.escape(r["mangled"]) for r in hot) + ")$")' "$w/${mode}_top.json")
        timeout 120 ncu --cache-control all --clock-control none --print-units base --csv \
            --page raw --metrics "$sol" --kernel-name-base mangled --print-kernel-base mangled \
            --kernel-name "regex:$re" \
            python3 "$py" $mode 0 >"$w/${mode}_ncu.csv" 2>"$w/${mode}_ncu.err"
        echo "$mode ncu (launches of the hot kernels, 2 iterations): rc $? in" \
            "$(awk -v a="$t" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.2f", b-a}') s" | tee -a "$txt"
        python3 bench/metrics/compare_llama.py "$w/${mode}_top.json" "$w/${mode}_roofline.json" \
            "$w/${mode}_metrics.json" "$w/${mode}_ncu.csv" "llama $mode" 2>&1 | tee -a "$txt" |
            grep '^\[' | tee -a "${summary:-/dev/null}"
    done
    tar -czf "$out/llama.tgz" -C "$w" . 2>/dev/null
}
