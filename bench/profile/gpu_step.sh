# GPU steps of the profiler (sourced by bench/gpu/run.sh; run as `bash bench/gpu/run.sh profile`
# after a build that made: ktune_cli ktune_inject gpu_trace profile_workload profile_session_bench).
# Writes $OUT/profile.jsonl (one JSON line per measurement), $OUT/profile.log and
# $OUT/transformer_layer.ktrace, then prints the summary table.
step_profile() {
    local k=$PWD/build-gpu/tools/ktune-cli/ktune b=$PWD/build-gpu/bench/profile
    local j=$OUT/profile.jsonl log=$OUT/profile.log tmp=${TMPDIR:-/tmp}/ktune_profile_bench
    mkdir -p "$tmp"
    : >"$j"
    { echo "## gpu_trace"; build-gpu/tests/gpu/gpu_trace 2>&1 | tail -5; } >>"$log" 2>&1
    # 4. The bundled trace, and the CLI on it.
    $k profile -o "$OUT/transformer_layer.ktrace" -- python3 bench/profile/transformer_layer.py \
        >>"$log" 2>&1
    $k top "$OUT/transformer_layer.ktrace" --by nvtx >>"$log" 2>&1
    $k top "$OUT/transformer_layer.ktrace" --by launch --limit 5 >>"$log" 2>&1
    $k export "$OUT/transformer_layer.ktrace" --format chrome -o "$tmp/t.json" >>"$log" 2>&1 &&
        python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('chrome events', len(d['traceEvents']))" "$tmp/t.json" >>"$log" 2>&1
    # 3. Session start / stop+save for 200 000 kernels; bytes per kernel.
    for rep in 1 2 3; do $b/profile_session_bench "$tmp/s.ktrace" 200000 >>"$j" 2>>"$log"; done
    # 1. Side by side, alternating, 5 processes each: C++ tiny launches, compute loop, graph.
    for rep in 1 2 3 4 5; do
        for w in "tiny 20000" "heavy 100" "graph 1000 20"; do
            $b/profile_workload $w | sed 's/}$/,"mode":"base"}/' >>"$j"
            $k profile --no-top -o "$tmp/w.ktrace" -- $b/profile_workload $w 2>>"$log" |
                sed 's/}$/,"mode":"ktune"}/' >>"$j"
        done
    done
    # 2. PyTorch: baseline, ktune, Kineto, Proton; 5 processes each, interleaved.
    local py=bench/profile/torch_overhead.py
    for rep in 1 2 3 4 5; do
        python3 $py base >>"$j" 2>>"$log"
        $k profile --no-top -o "$tmp/t.ktrace" -- python3 $py base ktune >>"$j" 2>>"$log"
        python3 $py kineto >>"$j" 2>>"$log"
        python3 $py proton >>"$j" 2>>"$log"
    done
    ls -l "$tmp" >>"$log"
    $k top "$tmp/t.ktrace" --limit 5 >>"$log" 2>&1
    # 5. A child process writes its own trace; exit codes are forwarded.
    $k profile --no-top -o "$tmp/mp.ktrace" -- python3 -c "import subprocess,sys,torch; subprocess.run([sys.executable,'-c','import torch; torch.ones(8,device=\"cuda\").add_(1); torch.cuda.synchronize()']); torch.zeros(8,device='cuda').mul_(2); torch.cuda.synchronize(); sys.exit(3)" >>"$log" 2>&1
    echo "mp exit code $? (expect 3); traces: $(ls $tmp | grep -c '^mp\.')" >>"$log"
    python3 bench/profile/summarize.py "$j" | tee -a "$summary"
}

# Where the launch overhead goes (bash bench/gpu/run.sh profile_overhead; needs the targets of
# step_profile plus raw_cupti_inject). Every variant is its own process, variants interleaved,
# 5 processes each. "raw" = bench/profile/raw_cupti_inject.cpp, the CUPTI floor with nothing of
# ktune; "k_*" = ktune profile with the record kinds named (k_default = the default kinds; run 3
# of docs/perf/profile.md called it k_nosync). Writes $OUT/profile_overhead.jsonl
# and the table $OUT/profile_overhead.txt.
step_profile_overhead() {
    local k=$PWD/build-gpu/tools/ktune-cli/ktune b=$PWD/build-gpu/bench/profile
    local raw=$b/libraw_cupti_inject.so j=$OUT/profile_overhead.jsonl
    local tmp=${TMPDIR:-/tmp}/ktune_overhead log=$OUT/profile_overhead.log
    mkdir -p "$tmp"
    : >"$j"
    tag() { sed "s/}\$/,\"mode\":\"$1\"}/"; }
    kt() { # variant record-kinds env... -- program args
        local v=$1 rec=$2
        shift 2
        env "$@" "$k" profile --no-top -o "$tmp/o.ktrace" --record "$rec" -- "${cmd[@]}" \
            2>>"$log" | tag "$v"
    }
    rw() { # variant kinds zeroed
        CUDA_INJECTION64_PATH=$raw RAW_CUPTI_KINDS=$2 RAW_CUPTI_ZEROED=$3 "${cmd[@]}" 2>>"$log" |
            tag "$1"
    }
    local all=memcpy,memset,sync,nvtx cmd
    for rep in 1 2 3 4 5; do
        cmd=("$b/profile_workload" tiny 20000)
        "${cmd[@]}" | tag base >>"$j"
        rw raw kernel 0 >>"$j"
        rw raw_zeroed kernel 1 >>"$j"
        rw raw_kmss kernel,memcpy,memset,sync 0 >>"$j"
        kt k_kernel kernel >>"$j"
        kt k_kernel_cupti_zeroes kernel KTUNE_ZEROED_BUFFERS=0 >>"$j"
        kt k_memcpy kernel,memcpy >>"$j"
        kt k_memset kernel,memset >>"$j"
        kt k_sync kernel,sync >>"$j"
        kt k_default kernel,memcpy,memset,nvtx >>"$j"
        kt k_all "$all" >>"$j"
        cmd=("$b/profile_workload" graph 1000 20)
        "${cmd[@]}" | tag base >>"$j"
        rw raw kernel 0 >>"$j"
        kt k_kernel kernel >>"$j"
        kt k_all "$all" >>"$j"
        for per in 1 100; do
            cmd=("$b/profile_workload" nvtx 20000 $per)
            "${cmd[@]}" | tag base >>"$j"
            kt k_default memcpy,memset,nvtx >>"$j"
        done
    done
    # The NVTX loop's trace: every kernel attributed to its range.
    cmd=("$b/profile_workload" nvtx 20000 100)
    kt k_default memcpy,memset,nvtx >/dev/null
    "$k" top "$tmp/o.ktrace" --by nvtx >>"$log" 2>&1
    local py=bench/profile/torch_overhead.py
    for rep in 1 2 3 4 5; do
        cmd=(python3 $py base) # its own "mode" key comes first; the tag's, last, wins
        python3 $py base >>"$j" 2>>"$log"
        rw raw kernel 0 >>"$j"
        kt k_kernel kernel >>"$j"
        kt k_default kernel,memcpy,memset,nvtx >>"$j"
        kt k_all "$all" >>"$j"
    done
    python3 bench/profile/summarize.py "$j" >"$OUT/profile_overhead.txt"
    cat "$OUT/profile_overhead.txt" | tee -a "$summary"
}

# NVTX attribution and CUPTI's floor (docs/perf/profile.md#nvtx-attribution; targets: ktune_cli
# ktune_inject gpu_trace cupti_holder trace_child profile_workload raw_cupti_inject; B=<build
# dir>, default build-gpu). Three steps of under two minutes each, or all three plus two real
# programs as `profile_programs` (244 s on the H200, docs/perf/profile.md#nvtx-attribution): profile_nvtx (GPU tests per NVTX link mode, the PyTorch transformer
# and two NVTX threads under window vs callback, NVTX attribution cost; 57 s in run 5),
# profile_torch (PyTorch: baseline, raw CUPTI, ktune, Kineto, Proton), profile_floor (CUPTI
# floor probes, ~10 us kernels, compute-bound and graph loops). Every variant its own process,
# variants interleaved, 5 processes each; lines land in $OUT/<step>.jsonl as they come (a run
# cut short still returns what it measured), the table in $OUT/<step>.txt.
_ps3_env() { # step name
    bd=${B:-$PWD/build-gpu}
    k=$bd/tools/ktune-cli/ktune b=$bd/bench/profile t=${TMPDIR:-/tmp}/ktune_s3
    raw=$b/libraw_cupti_inject.so j=$OUT/$1.jsonl log=$OUT/$1.log
    mkdir -p "$t"
    : >"$j"
    tag() { sed "s/}\$/,\"mode\":\"$1\"}/"; }
    to() { timeout 60 "$@"; }
    base() { to "${cmd[@]}" 2>>"$log" | tag base; }
    kt() { # variant env... (ktune profile, default record kinds)
        local v=$1
        shift
        to env "$@" "$k" profile --no-top -o "$t/$v.ktrace" -- "${cmd[@]}" 2>>"$log" | tag "$v"
    }
    rw() { # variant env... (raw CUPTI, zeroed buffers, kernel records only)
        local v=$1
        shift
        echo "[$v ${cmd[*]}]" >>"$log"
        to env CUDA_INJECTION64_PATH=$raw RAW_CUPTI_ZEROED=1 "$@" "${cmd[@]}" 2>>"$log" | tag "$v"
    }
}
_ps3_table() { # step name
    python3 bench/profile/summarize.py "$OUT/$1.jsonl" >"$OUT/$1.txt"
    cat "$OUT/$1.txt" | tee -a "$summary"
}
step_profile_nvtx() {
    local bd k b t raw j log cmd
    _ps3_env profile_nvtx
    echo "## gpu_trace, one run per link mode" >>"$log"
    for m in callback locked_map external_correlation window; do
        KTUNE_NVTX_LINK=$m to "$bd/tests/gpu/gpu_trace" >"$t/gt_$m.log" 2>&1
        echo "gpu_trace $m rc=$? $(tail -2 "$t/gt_$m.log" | tr '\n' ' ')" >>"$log"
        grep -E "nvtx path|external correlation" "$t/gt_$m.log" >>"$log"
    done
    to bash tests/gpu/trace/second_client.sh "$k" "$bd/tests/gpu/cupti_holder" "$t" >>"$log" 2>&1
    echo "second_client rc=$?" >>"$log"
    to bash tests/gpu/trace/children.sh "$k" "$bd/tests/gpu/trace_child" "$t" >>"$log" 2>&1
    echo "children rc=$?" >>"$log"
    # The PyTorch transformer with nested ranges: the same kernels in the same ranges under
    # window and callback? (compare_attribution.py: kernel by kernel, in start order)
    for m in window callback; do
        KTUNE_NVTX_LINK=$m to "$k" profile -o "$t/tx_$m.ktrace" -- \
            python3 bench/profile/transformer_nvtx.py >"$t/tx_$m.log" 2>&1
        echo "## transformer_nvtx $m rc=$?" >>"$log"
        cat "$t/tx_$m.log" >>"$log"
        "$k" top "$t/tx_$m.ktrace" --by nvtx-path >>"$log" 2>&1
        "$k" export "$t/tx_$m.ktrace" --format csv -o "$t/tx_$m.csv" >>"$log" 2>&1
        cp "$t/tx_$m.ktrace" "$OUT/" 2>/dev/null
    done
    python3 bench/profile/compare_attribution.py "$t/tx_window.csv" "$t/tx_callback.csv" \
        >>"$log" 2>&1
    echo "compare_attribution rc=$?" >>"$log"
    # The tiny loop with no range vs inside ranges, per link mode (locked_map: run 4).
    for rep in 1 2 3 4 5; do
        cmd=("$b/profile_workload" tiny 20000)
        { base; rw raw_zeroed; kt k_default; } >>"$j"
        for per in 1 100; do
            cmd=("$b/profile_workload" nvtx 20000 $per)
            { base; kt k_cb KTUNE_NVTX_LINK=callback; kt k_win KTUNE_NVTX_LINK=window
              kt k_ext KTUNE_NVTX_LINK=external_correlation; } >>"$j"
        done
    done
    # Two threads with ranges open at once: window falls back to launch callbacks.
    for m in window callback; do
        KTUNE_NVTX_LINK=$m to "$k" profile --no-top -o "$t/th_$m.ktrace" -- \
            python3 bench/profile/threads_nvtx.py >>"$log" 2>&1
        echo "## threads_nvtx $m rc=$?" >>"$log"
        "$k" top "$t/th_$m.ktrace" --by nvtx-path >>"$log" 2>&1
        "$k" top "$t/th_$m.ktrace" --by kernel --json >"$OUT/th_$m.json" 2>>"$log"
        "$k" export "$t/th_$m.ktrace" --format csv -o "$OUT/th_$m.csv" >>"$log" 2>&1
    done
    for m in k_cb k_ext k_win; do
        echo "## nvtx100 trace, $m" >>"$log"
        "$k" top "$t/$m.ktrace" --by nvtx >>"$log" 2>&1
    done
    _ps3_table profile_nvtx
}
step_profile_torch() {
    local bd k b t raw j log cmd
    _ps3_env profile_torch
    local py=bench/profile/torch_overhead.py
    for rep in 1 2 3 4 5; do
        cmd=(python3 $py base)
        { base; rw raw_zeroed; kt k_default; } >>"$j"
        to python3 $py kineto 2>>"$log" >>"$j"
        to python3 $py proton 2>>"$log" >>"$j"
    done
    _ps3_table profile_torch
}
step_profile_floor() {
    local bd k b t raw j log cmd
    _ps3_env profile_floor
    cmd=("$b/profile_workload" tiny 2000)
    rw raw_sem RAW_CUPTI_SEMAPHORE_POOL=100000 >/dev/null
    for rep in 1 2 3 4 5; do
        cmd=("$b/profile_workload" tiny 20000)
        # (run 4 also had PER_THREAD=0 +2.2 %, KIND_KERNEL +27.2 %, HOST_PINNED +1.5 % over the
        # floor: RAW_CUPTI_PER_THREAD=0, RAW_CUPTI_KINDS=serial_kernel, RAW_CUPTI_HOST_PINNED=1)
        { base; rw raw_zeroed; rw raw_dev32 RAW_CUPTI_DEVICE_BUFFER_MB=32
          rw raw_dev128 RAW_CUPTI_DEVICE_BUFFER_MB=128; rw raw_buf1 RAW_CUPTI_BUFFER_MB=1
          kt k_default; kt k_dev32 KTUNE_DEVICE_BUFFER_MB=32; } >>"$j"
        # Host side vs GPU side: ~10 us kernels make the loop GPU-paced.
        cmd=("$b/profile_workload" long 20000)
        { base; rw raw_zeroed; kt k_default; } >>"$j"
        for w in "heavy 100" "graph 1000 20"; do
            cmd=("$b/profile_workload" $w)
            { base; rw raw_zeroed; kt k_default; } >>"$j"
        done
    done
    _ps3_table profile_floor
}
step_profile_programs() {
    step_profile_nvtx
    step_profile_torch
    step_profile_floor
    local bd k b t raw j log cmd
    _ps3_env profile_programs
    # Real programs: PyTorch NVTX ranges attributed; a child process writes its own trace.
    to "$k" profile -o "$t/nvtx_torch.ktrace" -- python3 bench/profile/transformer_nvtx.py \
        >>"$log" 2>&1
    "$k" top "$t/nvtx_torch.ktrace" --by nvtx-path >>"$log" 2>&1
    to "$k" profile --no-top -o "$t/mp.ktrace" -- python3 -c "import subprocess,sys,torch; subprocess.run([sys.executable,'-c','import torch; torch.ones(8,device=\"cuda\").add_(1); torch.cuda.synchronize()']); torch.zeros(8,device='cuda').mul_(2); torch.cuda.synchronize(); sys.exit(3)" >>"$log" 2>&1
    echo "mp exit code $? (expect 3); traces: $(ls $t | grep -c '^mp\.')" >>"$log"
    for f in "$t"/mp.*ktrace; do "$k" top "$f" --limit 2 >>"$log" 2>&1; done
}

# The first ablation of the launch overhead (docs/perf/profile.md#overhead-ablation): ktune
# profile with one record kind at a time; needs the targets of step_profile.
step_profile_ablation() {
    bash bench/profile/overhead_ablation.sh "${B:-$PWD/build-gpu}" "$OUT/profile_ablation.jsonl"
}
