# GPU steps of the op tuner (sourced by bench/gpu/run.sh; run as `bash bench/gpu/run.sh build tune`).
# Writes $OUT/tune_*.jsonl and the brute-forced spaces; prints a table last.
step_tune() {
    local b=build-gpu/bench/tune/bench_tune k=build-gpu/tools/ktune-cli/ktune
    [ -x "$b" ] || { echo "bench_tune not built"; return 1; }
    local log=$OUT/tune_bench.jsonl cold
    : >"$log"
    # 1. NVRTC cost per candidate: one program each vs 2/4/8 per program, with and without
    #    -minimal (CPU only; single thread and the 16-thread pool).
    $b compile softmax 8192x8192 bf16 16 >>"$OUT/tune_compile.jsonl" 2>>"$OUT/tune_stderr.log"
    KTUNE_NVRTC_MINIMAL=0 $b compile softmax 8192x8192 bf16 16 >>"$OUT/tune_compile.jsonl" 2>>"$OUT/tune_stderr.log"
    # 2. A 200-candidate tune, cubin cache cold: before (one program per candidate, no
    #    compile-ahead, no -minimal) and after; then warm (every cubin cached).
    cold=$(mktemp -d)
    KTUNE_CUBIN_CACHE=$cold KTUNE_NVRTC_MINIMAL=0 KTUNE_BENCH_PER_PROGRAM=1 KTUNE_BENCH_AHEAD=0 \
        $b tune softmax 8192x8192 bf16 200 | sed 's/"mode":"tune"/"mode":"tune_cold_before"/' >>"$log" 2>>"$OUT/tune_stderr.log"
    cold=$(mktemp -d)
    KTUNE_CUBIN_CACHE=$cold $b tune softmax 8192x8192 bf16 200 | sed 's/"mode":"tune"/"mode":"tune_cold"/' >>"$log" 2>>"$OUT/tune_stderr.log"
    KTUNE_CUBIN_CACHE=$cold $b tune softmax 8192x8192 bf16 200 | sed 's/"mode":"tune"/"mode":"tune_warm"/' >>"$log" 2>>"$OUT/tune_stderr.log"
    export KTUNE_CUBIN_CACHE=$PWD/build-gpu/cubin
    # 3. The CLI path with PyTorch's speed-up, twice: a search, then an instant cache hit.
    ( time $k tune softmax --shape 8192x8192 --dtype bf16 --budget 64 --cache "$OUT/tuned.json" --vs-torch ) 2>&1 | tail -14
    ( time $k tune softmax --shape 8192x8192 --dtype bf16 --budget 64 --cache "$OUT/tuned.json" ) 2>&1 | tail -6
    # 4. The in-place op: restored inputs, PyTorch's fused addcmul(out=x) as the baseline.
    for dt in fp32 bf16; do
        $k tune scale_bias_ --shape 8192x8192 --dtype $dt --cache "$OUT/tuned.json" --vs-torch 2>&1 | tail -9
    done
    # 5. Fault injection: 20 % of candidates wrong, faulting or hanging.
    $b faults softmax 8192x8192 fp32 0.2 100 >>"$log" 2>>"$OUT/tune_stderr.log"
    # 6. Ten independent tunes (seeds 1..10) of one op and shape.
    $b repeat layernorm 8192x8192 bf16 10 >>"$log" 2>>"$OUT/tune_stderr.log"
    python3 - "$log" "$OUT/tune_compile.jsonl" <<'PY'
import json, sys
for l in open(sys.argv[2]):
    j = json.loads(l)
    print("compile", j["op"], j["dtype"], "per_program", j["per_program"], "minimal", j["minimal"], "ok", j["ok"],
          "cpu ms/cand %.1f" % j["cpu_ms_per_candidate"], "pool(%d) wall ms/cand %.1f" % (j["threads"], j["pool_wall_ms_per_candidate"]))
for line in open(sys.argv[1]):
    j = json.loads(line); s = j.get("summary") or j.get("last") or {}
    pc = s.get("per_candidate_ms", {})
    print(j["mode"], j["op"], j["shape"], j["dtype"], "n", s.get("candidates"), "winner", s.get("winner"),
          "ms %.4f" % s.get("median_ms", 0), "%%copy %.1f" % s.get("pct_copy", 0),
          "wall %.2f s" % s.get("wall_s", 0), "busy %.0f%%" % s.get("gpu_busy_pct", 0),
          "compile cpu %.1f s wait %.2f s hits %s" % (s.get("compile_cpu_s", 0), s.get("compile_wait_s", 0), s.get("cubin_cache_hits")),
          "setup %.2f s confirm %.2f s" % (s.get("setup_s", 0), s.get("confirm_s", 0)),
          "per cand: worker %.2f check %.2f timing %.2f load %.2f outside %.2f" % tuple(pc.get(k, 0) for k in ("worker", "check", "timing", "load", "outside_worker")),
          {k: j[k] for k in ("in_one_tie_band", "injected", "caught", "wrong_winner", "distinct_winners") if k in j})
PY
}

# Every op x dtype x benchmark shape: ktune's tuned kernel vs PyTorch, as % of copy bandwidth.
step_tune_sweep() {
    local b=build-gpu/bench/tune/bench_tune
    export KTUNE_CUBIN_CACHE=$PWD/build-gpu/cubin
    local log=$OUT/tune_sweep.jsonl
    : >"$log"
    python3 bench/tune/torch_ops.py >"$OUT/torch_ops.jsonl" 2>>"$OUT/tune_stderr.log"
    for op in softmax layernorm rowsum transpose; do
        for dt in fp32 bf16; do
            for s in 4096x4096 8192x8192 16384x4096 32768x1024 4096x32768 1024x131072; do
                $b tune $op $s $dt ${SWEEP_BUDGET:-64} >>"$log" 2>>"$OUT/tune_stderr.log"
            done
        done
    done
    python3 bench/tune/compare.py "$log" "$OUT/torch_ops.jsonl" | tee "$OUT/tune_sweep.md"
}

# The brute-forced Hopper spaces (Kernel Tuner cache format) for examples/data/spaces/.
step_tune_spaces() {
    local b=build-gpu/bench/tune/bench_tune
    # A fresh cubin cache: the recorded compile_time is a real NVRTC compile, not a cache hit.
    KTUNE_CUBIN_CACHE=$(mktemp -d)
    export KTUNE_CUBIN_CACHE
    local gpu
    gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -o 'H[0-9]00')
    $b brute softmax 8192x8192 bf16 "$OUT/softmax_bf16_8192x8192_${gpu}.json" >>"$OUT/tune_spaces.jsonl"
    $b brute transpose 8192x8192 fp32 "$OUT/transpose_fp32_8192x8192_${gpu}.json" >>"$OUT/tune_spaces.jsonl"
    $b brute layernorm 8192x8192 fp32 "$OUT/layernorm_fp32_8192x8192_${gpu}.json" >>"$OUT/tune_spaces.jsonl"
    $b brute rowsum 1024x131072 bf16 "$OUT/rowsum_bf16_1024x131072_${gpu}.json" >>"$OUT/tune_spaces.jsonl"
    python3 -c "
import json, sys
for l in open(sys.argv[1]):
    j = json.loads(l); s = j['summary']
    print('brute', j['op'], j['shape'], j['dtype'], s['candidates'], s['statuses'], 'best', s.get('winner'), '%.4f ms' % s.get('median_ms', 0), '%.1f %% copy' % s.get('pct_copy', 0), 'default %.1f %%' % s.get('default_pct_copy', 0))
" "$OUT/tune_spaces.jsonl"
}

# The embedding example runs the cached winner: exact tier, nearest-bucket tier, default tier.
step_tune_example() {
    local k=build-gpu/tools/ktune-cli/ktune e
    e=$(find build-gpu -name example_tuned_launch -type f | head -1)
    export KTUNE_CUBIN_CACHE=$PWD/build-gpu/cubin
    $k tune softmax --shape 8192x8192 --dtype bf16 --budget 64 --cache "$OUT/example_cache.json" >/dev/null
    $e "$OUT/example_cache.json" softmax 8192x8192 bf16
    $e "$OUT/example_cache.json" softmax 2048x8192 bf16
    $e "$OUT/example_cache.json" transpose 8192x8192 fp32
}
