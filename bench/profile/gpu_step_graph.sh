# Graph-level tracing and the CUPTI floor (bash bench/gpu/run.sh profile_graph; needs the targets
# ktune_cli ktune_inject profile_workload raw_cupti_inject in build-gpu). docs/perf/profile.md
# "Graph-level tracing" holds the results and the command. PROFILE_GRAPH_ROUNDS rounds (default 7)
# and PROFILE_GRAPH_COUNTS=0 skips the record counts; in each round, every variant is
# its own process, variants interleaved. Variants: base (unprofiled); raw / raw_kmm / raw_graph =
# bench/profile/raw_cupti_inject.cpp enabling kernel / kernel,memcpy,memset / kernel,graph records,
# nothing else (the CUPTI floor); k_graph / k_default = `ktune profile` defaults (graph-level),
# k_node = --graph-trace node, k_kernel = --record kernel. Writes $OUT/profile_graph.jsonl and the table
# $OUT/profile_graph.txt; the record counts ("nothing lost") go to the summary.
step_profile_graph() {
    local k=$PWD/build-gpu/tools/ktune-cli/ktune b=$PWD/build-gpu/bench/profile
    local raw=$b/libraw_cupti_inject.so j=$OUT/profile_graph.jsonl log=$OUT/profile_graph.log
    local tmp=${TMPDIR:-/tmp}/ktune_graph cmd py=bench/profile/torch_overhead.py
    mkdir -p "$tmp"
    : >"$j"
    tag() { sed "s/}\$/,\"mode\":\"$1\"}/"; }
    kt() { # variant ktune-options... (the program is "${cmd[@]}")
        local v=$1
        shift
        "$k" profile --no-top -o "$tmp/o.ktrace" "$@" -- "${cmd[@]}" 2>>"$log" | tag "$v"
    }
    rw() { CUDA_INJECTION64_PATH=$raw RAW_CUPTI_KINDS=$2 "${cmd[@]}" 2>>"$log" | tag "$1"; }
    local round
    for round in $(seq "${PROFILE_GRAPH_ROUNDS:-7}"); do
        cmd=("$b/profile_workload" graph 1000 20)
        "${cmd[@]}" | tag base >>"$j"
        rw raw kernel >>"$j"
        rw raw_graph kernel,graph >>"$j"
        kt k_graph >>"$j"
        kt k_node --graph-trace node >>"$j"
        cmd=("$b/profile_workload" tiny 20000)
        "${cmd[@]}" | tag base >>"$j"
        rw raw kernel >>"$j"
        rw raw_g kernel,graph >>"$j"
        rw raw_kmm kernel,memcpy,memset >>"$j"
        kt k_kernel --record kernel >>"$j"
        kt k_kernel_node --record kernel --graph-trace node >>"$j"
        kt k_default >>"$j"
        cmd=(python3 $py base)
        "${cmd[@]}" >>"$j" 2>>"$log"
        rw raw kernel >>"$j"
        rw raw_kmm kernel,memcpy,memset >>"$j"
        rw raw_graph kernel,memcpy,memset,graph >>"$j"
        kt k_kernel --record kernel >>"$j"
        kt k_default >>"$j"
    done
    # cudaGraphLaunch's host cost per launch: a 10-node graph launched 200 times a run.
    for round in 1 2 3; do
        cmd=("$b/profile_workload" graph 10 200)
        "${cmd[@]}" | sed 's/cpp_graph/cpp_graph10x200/' | tag base >>"$j"
        rw raw_graph kernel,graph | sed 's/cpp_graph/cpp_graph10x200/' >>"$j"
        kt k_graph | sed 's/cpp_graph/cpp_graph10x200/' >>"$j"
        kt k_node --graph-trace node | sed 's/cpp_graph/cpp_graph10x200/' >>"$j"
    done
    python3 bench/profile/summarize.py "$j" >"$OUT/profile_graph.txt"
    cat "$OUT/profile_graph.txt" | tee -a "$summary"
    # Nothing lost: the C++ graph workload launches its graph 6 x 20 times (a warm-up run and 5
    # timed ones), 1,000 kernel nodes each.
    [ "${PROFILE_GRAPH_COUNTS:-1}" = 1 ] || return 0
    for mode in graph node; do
        "$k" profile --no-top -o "$tmp/count_$mode.ktrace" --graph-trace $mode -- \
            "$b/profile_workload" graph 1000 20 >/dev/null 2>>"$log"
        "$k" top "$tmp/count_$mode.ktrace" --json --limit 1000 >"$tmp/count_$mode.json" 2>>"$log"
        python3 - "$tmp/count_$mode.json" $mode <<'PY' | tee -a "$summary"
import json, sys
d = json.load(open(sys.argv[1]))
rows = d.get("rows") or d.get("kernels") or []
graphs = sum(r.get("count", 0) for r in rows if str(r.get("name", "")).startswith("CUDA graph"))
kernels = sum(r.get("count", 0) for r in rows if not str(r.get("name", "")).startswith("CUDA graph"))
print(f"graph-trace {sys.argv[2]}: {graphs} graph-launch records (expect 120 in graph mode), "
      f"{kernels} kernel records (expect 120000 in node mode, 0 in graph mode)")
PY
    done
    "$k" top "$tmp/count_graph.ktrace" --limit 3 >>"$log" 2>&1
    "$k" export "$tmp/count_graph.ktrace" --format chrome -o "$tmp/g.json" >>"$log" 2>&1 &&
        python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('chrome graph events', sum(1 for e in d['traceEvents'] if str(e.get('name','')).startswith('CUDA graph')))" "$tmp/g.json" | tee -a "$summary"
}
