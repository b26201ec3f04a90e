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
