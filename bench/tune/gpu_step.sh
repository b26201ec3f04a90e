# GPU steps of the op tuner (sourced by bench/gpu/run.sh; run as `bash bench/gpu/run.sh build tune`).
# Writes $OUT/tune_runtime.jsonl, $OUT/tune_*.txt tables and the brute-forced spaces.
# The tuning runtime (docs/perf/tune.md#compile-servers): step_tune runs the four below (each
# well under 2 minutes).
step_tune() {
    step_tune_compile
    step_tune_busy
    step_tune_checks
    step_tune_cli
}

_tune_table() { # the JSON lines of $1 as one table row each
    python3 - "$1" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    try: j = json.loads(line)
    except ValueError: continue
    if j.get("mode") == "compile_scaling":
        print("compile_scaling %-9s width %2d servers %2d: %d/%d ok, %.1f cand/s, %.1f CPU ms/cand, first %.0f ms" % (
            j["pool"], j["width"], j["servers"], j["ok"], j["candidates"], j["candidates_per_s"], j["cpu_ms_per_candidate"], j["first_result_ms"]))
        continue
    if "busy_all_pct" in j:
        print("observer (CUPTI trace): wall %.2f s, span %.2f s, busy kernels+memsets+memcpys %.2f s = %.1f %% of wall (kernels only %.1f %%), worker events %.1f %%" % (
            j["wall_s"], j["span_s"], j["busy_all_s"], j["busy_all_pct"], j["busy_kernels_pct"], j["event_busy_pct"]))
        continue
    s = j.get("summary") or j.get("last") or {}
    pc = s.get("per_candidate_ms", {})
    print(j.get("mode"), j.get("op"), j.get("shape"), j.get("dtype"), "n", s.get("candidates"), "winner", s.get("winner"),
          "ms %.4f" % s.get("median_ms", 0), "%%copy %.1f" % s.get("pct_copy", 0),
          "| wall %.2f s busy %.1f%% (loop %.1f%%, %.2f ms/cand outside the GPU's work)" % (s.get("wall_s", 0), s.get("gpu_busy_pct", 0), s.get("loop_busy_pct", 0), s.get("loop_overhead_ms_per_candidate", 0)),
          "| setup %.2f (worker %.2f) loop %.2f confirm %.2f s" % (s.get("setup_s", 0), s.get("worker_setup_s", 0),
              s.get("wall_s", 0) - s.get("setup_s", 0) - s.get("confirm_s", 0), s.get("confirm_s", 0)),
          "| compile %.1f CPU-s wait %.2f s hits %s servers %s failed %s copy_cached %s" % (s.get("compile_cpu_s", 0), s.get("compile_wait_s", 0),
              s.get("cubin_cache_hits"), s.get("compile_servers"), s.get("compile_server_failures"), s.get("copy_gbs_cached")),
          "| per cand: worker %.2f check %.2f timing %.2f load %.2f outside %.2f" % tuple(pc.get(k, 0) for k in ("worker", "check", "timing", "load", "outside_worker")),
          {k: j[k] for k in ("in_one_tie_band", "injected", "caught", "wrong_winner", "distinct_winners", "median_us_range") if k in j})
PY
}

# 1. Compile throughput, CPU only: 64 candidates on pools of 1..16 threads vs compile servers
#    (NVRTC's own driver cache is off: base_options passes --no-cache, so every run compiles).
step_tune_compile() {
    local b=build-gpu/bench/tune/bench_tune log=$OUT/tune_runtime.jsonl
    timeout 100 $b compile_scaling softmax 8192x8192 bf16 64 1,2,4,8,16 >>"$log" 2>>"$OUT/tune_stderr.log"
    _tune_table "$log" | grep compile_scaling | tee "$OUT/tune_compile.txt"
}

# 2. GPU busy of a 200-candidate tune: cubins and copy bandwidth cold; cubins cold (copy
#    bandwidth known); warm (twice); two warm tunes in one session; cubins cold compiled in
#    threads (before); warm under `ktune profile` (the observer's busy from the CUPTI trace next
#    to the worker's event spans).
step_tune_busy() {
    local b=build-gpu/bench/tune/bench_tune k=build-gpu/tools/ktune-cli/ktune log=$OUT/tune_runtime.jsonl
    local d1 d2 d3 tr
    d1=$(mktemp -d) d2=$(mktemp -d) d3=$(mktemp -d) tr=$(mktemp -d)
    KTUNE_CUBIN_CACHE=$d1 timeout 60 $b tune softmax 8192x8192 bf16 200 | sed 's/"mode":"tune"/"mode":"tune_cold_all"/' >>"$log" 2>>"$OUT/tune_stderr.log"
    cp "$d1"/copy-gbs-* "$d2"/ 2>/dev/null; cp "$d1"/copy-gbs-* "$d3"/ 2>/dev/null
    KTUNE_CUBIN_CACHE=$d2 timeout 60 $b tune softmax 8192x8192 bf16 200 | sed 's/"mode":"tune"/"mode":"tune_cold"/' >>"$log" 2>>"$OUT/tune_stderr.log"
    KTUNE_CUBIN_CACHE=$d2 timeout 60 $b tune softmax 8192x8192 bf16 200 | sed 's/"mode":"tune"/"mode":"tune_warm"/' >>"$log" 2>>"$OUT/tune_stderr.log"
    KTUNE_CUBIN_CACHE=$d2 timeout 60 $b tune softmax 8192x8192 bf16 200 | sed 's/"mode":"tune"/"mode":"tune_warm2"/' >>"$log" 2>>"$OUT/tune_stderr.log"
    # Two tunes in one tune_session (warm): the second skips the worker's and servers' start-up.
    KTUNE_CUBIN_CACHE=$d2 timeout 60 $b session softmax 8192x8192 bf16 2 200 >>"$log" 2>>"$OUT/tune_stderr.log"
    KTUNE_CUBIN_CACHE=$d3 KTUNE_BENCH_COMPILE=threads timeout 60 $b tune softmax 8192x8192 bf16 200 | sed 's/"mode":"tune"/"mode":"tune_cold_threads"/' >>"$log" 2>>"$OUT/tune_stderr.log"
    KTUNE_CUBIN_CACHE=$d2 timeout 60 $k profile --no-top -o "$tr/tune.ktrace" -- $b tune softmax 8192x8192 bf16 200 \
        | sed 's/"mode":"tune"/"mode":"tune_warm_profiled"/' >"$tr/bench.jsonl" 2>>"$OUT/tune_stderr.log"
    cat "$tr/bench.jsonl" >>"$log"
    for t in "$tr"/*.ktrace; do timeout 20 $k export "$t" --format csv -o "$t.csv" 2>>"$OUT/tune_stderr.log"; done
    timeout 30 python3 bench/tune/busy_from_trace.py "$tr/bench.jsonl" "$tr"/*.csv >>"$log" 2>>"$OUT/tune_stderr.log"
    timeout 20 $k top "$tr"/*.ktrace --limit 5 2>&1 | grep -i "busy" >>"$OUT/tune_stderr.log"
    _tune_table "$log" | grep -E "^(tune_|session_)|observer" | tee "$OUT/tune_busy.txt"
    rm -rf "$d1" "$d2" "$d3" "$tr"
}

# 3. Fault injection (20 % wrong, faulting or hanging) and ten independent tunes' tie band.
step_tune_checks() {
    local b=build-gpu/bench/tune/bench_tune log=$OUT/tune_runtime.jsonl
    timeout 40 $b faults softmax 8192x8192 fp32 0.2 100 >>"$log" 2>>"$OUT/tune_stderr.log"
    timeout 70 $b repeat layernorm 8192x8192 bf16 10 >>"$log" 2>>"$OUT/tune_stderr.log"
    _tune_table "$log" | grep -E "^(faults|repeat)" | tee "$OUT/tune_checks.txt"
}

# 4. The CLI: a search with PyTorch's speed-up, then an instant cache hit; the in-place op.
step_tune_cli() {
    local k=build-gpu/tools/ktune-cli/ktune
    ( time timeout 30 $k tune softmax --shape 8192x8192 --dtype bf16 --budget 64 --cache "$OUT/tuned.json" --vs-torch ) 2>&1 | tail -14
    ( time timeout 10 $k tune softmax --shape 8192x8192 --dtype bf16 --budget 64 --cache "$OUT/tuned.json" ) 2>&1 | tail -6
    timeout 30 $k tune scale_bias_ --shape 8192x8192 --dtype bf16 --cache "$OUT/tuned.json" --vs-torch 2>&1 | tail -9
    rm -f "$OUT/tuned.json"
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

# Where a fresh process's set-up goes, and several tunes in one CLI process
# (docs/perf/tune.md#setup-split). `bash bench/gpu/run.sh build tune_setup:60 tune_multi:45`.
step_tune_setup_multi() {
    step_tune_setup
    step_tune_multi
}

# The 200-candidate tune (softmax bf16 8192x8192): fully cold, cold cubins, then warm in fresh
# processes with the set-up overlaps on, each one off and all off (3 interleaved rounds), then a
# session's second tune. Table: $OUT/tune_setup.txt (set-up split per run, medians per variant).
step_tune_setup() {
    local b=build-gpu/bench/tune/bench_tune log=$OUT/tune_setup.jsonl d1 d2 v
    d1=$(mktemp -d) d2=$(mktemp -d)
    KTUNE_CUBIN_CACHE=$d1 timeout 60 $b tune softmax 8192x8192 bf16 200 2>>"$OUT/tune_stderr.log" |
        sed 's/"mode":"tune"/"mode":"s4_cold_all"/' >>"$log"
    cp "$d1"/copy-gbs-* "$d2"/ 2>/dev/null
    KTUNE_CUBIN_CACHE=$d2 timeout 60 $b tune softmax 8192x8192 bf16 200 2>>"$OUT/tune_stderr.log" |
        sed 's/"mode":"tune"/"mode":"s4_cold_cubins"/' >>"$log"
    for round in 1 2 3; do
        for v in none prepare lazy early record prepare,lazy,early,record; do
            KTUNE_CUBIN_CACHE=$d2 KTUNE_BENCH_SETUP_OFF=$v timeout 30 $b tune softmax 8192x8192 bf16 200 \
                2>>"$OUT/tune_stderr.log" | sed "s/\"mode\":\"tune\"/\"mode\":\"s4_warm_off_${v//,/+}\"/" >>"$log"
        done
    done
    KTUNE_CUBIN_CACHE=$d2 timeout 60 $b session softmax 8192x8192 bf16 2 200 >>"$log" 2>>"$OUT/tune_stderr.log"
    # A kept worker (--keep-worker): the first run starts it, the next two find it.
    for v in 1 2 3; do
        KTUNE_CUBIN_CACHE=$d2 KTUNE_BENCH_KEEP_WORKER=15 timeout 30 $b tune softmax 8192x8192 bf16 200 \
            2>>"$OUT/tune_stderr.log" | sed "s/\"mode\":\"tune\"/\"mode\":\"s4_warm_kept_$v\"/" >>"$log"
    done
    python3 bench/tune/setup_table.py bench "$log" | tee "$OUT/tune_setup.txt"
    rm -rf "$d1" "$d2"
}

# A fresh process's 200-candidate tune on warm cubins, as step_tune_setup measures it (softmax
# bf16 8192x8192: 65 us kernels) and on a problem whose candidates run twice as long (4096x32768:
# ~135 us), FRESH_ROUNDS (3) interleaved rounds, with the worker's one-connection context
# (docs/perf/tune.md#one-connection-context; bench/tune/ctx_probe.sh: context 45 vs 98 ms).
# Table: $OUT/tune_fresh.txt.
step_tune_fresh() {
    local b=build-gpu/bench/tune/bench_tune log=$OUT/tune_fresh.jsonl d s round
    d=$(mktemp -d)
    # Warm = every config of the space compiled (a budget over the space's size): `auto` samples
    # differently each run, and a first 200-candidate run left 16-40 misses per later run (the
    # first run of this step: compile servers started mid-loop).
    for s in 8192x8192 4096x32768; do # warms the cubin cache and the copy reference
        KTUNE_CUBIN_CACHE=$d timeout 60 $b tune softmax $s bf16 1000 >/dev/null 2>>"$OUT/tune_stderr.log"
    done
    for round in $(seq "${FRESH_ROUNDS:-3}"); do
        for s in 8192x8192 4096x32768; do
            KTUNE_CUBIN_CACHE=$d timeout 30 $b tune softmax $s bf16 200 2>>"$OUT/tune_stderr.log" |
                sed "s/\"mode\":\"tune\"/\"mode\":\"s5_warm_${s}\"/" >>"$log"
        done
    done
    python3 bench/tune/setup_table.py bench "$log" | tee "$OUT/tune_fresh.txt"
    rm -rf "$d"
}

# The CLI as a user runs it: one 200-candidate tune per process on warm cubins (twice), then
# four tunes in one process (2 shapes x 2 dtypes) on cold cubins and again on warm ones, then
# the same command answered from the cache. Table: $OUT/tune_multi.txt.
step_tune_multi() {
    local k=build-gpu/tools/ktune-cli/ktune d t0 t1 pass
    d=$(mktemp -d)
    export KTUNE_CUBIN_CACHE=$d/cubin
    mkdir -p "$KTUNE_CUBIN_CACHE"
    cp build-gpu/cubin/copy-gbs-* "$KTUNE_CUBIN_CACHE"/ 2>/dev/null
    _cli_time() { # label, then the command: process wall time in the table
        local rc
        t0=$(date +%s.%N)
        "${@:2}" >"$OUT/$1.json" 2>>"$OUT/tune_stderr.log"
        rc=$?
        t1=$(date +%s.%N)
        echo "$1: rc $rc process wall $(python3 -c "print('%.3f' % ($t1 - $t0))") s" >>"$d/times.txt"
    }
    _cli_time cli_single_cold timeout 30 $k tune softmax --shape 8192x8192 --dtype bf16 --budget 200 --cache "$d/a.json" --json
    _cli_time cli_single_warm1 timeout 30 $k tune softmax --shape 8192x8192 --dtype bf16 --budget 200 --cache "$d/b.json" --json
    _cli_time cli_single_warm2 timeout 30 $k tune softmax --shape 8192x8192 --dtype bf16 --budget 200 --cache "$d/c.json" --json
    for pass in cold warm; do
        _cli_time "cli_multi_$pass" timeout 60 $k tune softmax --shape 8192x8192 --shape 4096x32768 \
            --dtype bf16,fp32 --budget 200 --cache "$d/multi_$pass.json" --json
    done
    # --keep-worker: the first starts a kept worker, the second and third run on it.
    for pass in 1 2 3; do
        _cli_time "cli_kept_$pass" timeout 30 $k tune softmax --shape 8192x8192 --dtype bf16 --budget 200 \
            --keep-worker 15 --cache "$d/kept_$pass.json" --json
    done
    _cli_time cli_multi_hits timeout 30 $k tune softmax --shape 8192x8192 --shape 4096x32768 \
        --dtype bf16,fp32 --budget 200 --cache "$d/multi_warm.json" --json
    { cat "$d/times.txt"
      python3 bench/tune/setup_table.py cli "$OUT"/cli_single_*.json "$OUT"/cli_kept_*.json "$OUT"/cli_multi_*.json
      timeout 30 $k tune softmax --shape 8192x8192 --shape 4096x32768 --dtype bf16,fp32 --budget 200 \
          --cache "$d/multi_warm.json" 2>&1 | tail -12
    } | tee "$OUT/tune_multi.txt"
    unset KTUNE_CUBIN_CACHE
    rm -rf "$d"
}

# What a fresh process's GPU open (cuInit) and context cost, under the settings that might move
# them (docs/perf/tune.md#one-connection-context). Builds its own driver-API probe with nvcc.
step_tune_ctx() {
    ROUNDS=${CTX_ROUNDS:-5} bash bench/tune/ctx_probe.sh
}
