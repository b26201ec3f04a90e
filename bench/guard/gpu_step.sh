# GPU step of the regression gate (sourced by bench/gpu/run.sh; `bash bench/gpu/run.sh guard`
# after a build that made ktune_cli ktune_inject guard_workload). Writes $OUT/guard.txt (the
# table) and $OUT/guard/ (results files, diffs, traces, log).
#   1. `ktune tune` each built-in op at one shape (small budget) so "cached" entries have winners;
#   2. A/A: GUARD_AA_RUNS (20) + 2 fresh `ktune bench bench/guard/gpu_suite.json` processes;
#      the first two pooled are the baseline, each later run a candidate: no failing verdict;
#   3. traces: guard_workload profiled twice as is and once with one kernel doing 5 % more
#      work: `ktune diff` must call that kernel slower (kernel time), the others same;
#   4. re-validation: a cache whose rowsum winner was swapped for a poor config is reported
#      stale, the tuned one is not.
step_guard() {
    local b=$PWD/build-gpu k=$PWD/build-gpu/tools/ktune-cli/ktune
    local t=$OUT/guard tab=$OUT/guard.txt runs=${GUARD_AA_RUNS:-20}
    mkdir -p "$t"
    local log=$t/log.txt
    : >"$log"
    export PATH=$b/tools/ktune-cli:$b/bench/guard:$PATH
    export KTUNE_CACHE=$t/cache.json KTUNE_CUBIN_CACHE=${TMPDIR:-/tmp}/ktune_guard_cubin
    local t0=$SECONDS
    {
        echo "# guard on the GPU $(date -u +%Y-%m-%dT%H:%MZ)"
        nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
    } >"$tab"
    for op in softmax layernorm rowsum transpose; do
        $k tune "$op" --shape 4096x2048 --dtype fp32 --budget 12 >>"$log" 2>&1 ||
            echo "tune $op failed" | tee -a "$tab"
    done
    echo "tuned 4 ops in $((SECONDS - t0)) s" | tee -a "$tab"

    # 3. One kernel made 5 % slower, seen through traces.
    $k profile --no-top -o "$t/base.ktrace" -- guard_workload 40 >>"$log" 2>&1
    $k profile --no-top -o "$t/base2.ktrace" -- guard_workload 40 >>"$log" 2>&1
    GUARD_SLOW_KERNEL=fma GUARD_SLOW_PCT=5 \
        $k profile --no-top -o "$t/slow.ktrace" -- guard_workload 40 >>"$log" 2>&1
    $k diff "$t/base.ktrace" "$t/base2.ktrace" >"$t/trace_aa.txt" 2>&1
    echo "trace A/A diff: exit $?" | tee -a "$tab"
    $k diff "$t/base.ktrace" "$t/slow.ktrace" >"$t/trace_slow.txt" 2>&1
    echo "trace 5 % slower guard_fma: exit $? (expect 1)" | tee -a "$tab"
    sed -n 1,25p "$t/trace_slow.txt" >>"$tab"

    # 2. A/A reruns, each a fresh process.
    local t1=$SECONDS n=$((runs + 2)) fails=0 flagged=0 passes=0 other=0
    for i in $(seq 1 $n); do
        $k bench bench/guard/gpu_suite.json -o "$t/run$i.json" >>"$log" 2>&1 ||
            echo "bench run $i failed (rc $?)" | tee -a "$tab"
    done
    echo "A/A: $n bench runs in $((SECONDS - t1)) s" | tee -a "$tab"
    for i in $(seq 3 $n); do
        $k diff "$t/run1.json" "$t/run2.json" -c "$t/run$i.json" >"$t/diff$i.txt" 2>&1
        case $? in
        0) passes=$((passes + 1)) ;;
        1) fails=$((fails + 1)) ;;
        *) other=$((other + 1)) ;;
        esac
        grep -qE "SLOWER|FASTER" "$t/diff$i.txt" && flagged=$((flagged + 1))
    done
    echo "A/A: $runs diffs against a pooled baseline of 2 runs: pass $passes, fail (regression)" \
        "$fails, exit 2 $other; runs with any slower/faster key: $flagged" | tee -a "$tab"
    $k diff "$t/run1.json" "$t/run2.json" -c "$t/run$n.json" --format md >"$t/diff_last.md" 2>&1
    # The spread of every key across the runs: per-run medians, their min/max relative to the
    # median of medians (how far apart fresh processes land).
    python3 - "$t" "$n" >>"$tab" 2>&1 <<'EOF'
import json, statistics, sys
t, n = sys.argv[1], int(sys.argv[2])
meds = {}
for i in range(1, n + 1):
    try:
        r = json.load(open(f"{t}/run{i}.json"))
    except Exception:
        continue
    for e in r["entries"]:
        if e.get("status") == "ok":
            k = e["name"] + " " + e.get("shape", "")
            meds.setdefault(k, []).append(statistics.median(e["samples"]))
print("| key | runs | median of run medians | min | max | config |")
print("|---|---|---|---|---|---|")
cfg = {}
r = json.load(open(f"{t}/run1.json"))
for e in r["entries"]:
    cfg[e["name"] + " " + e.get("shape", "")] = e.get("config", "") + (" (" + e["config_source"] + ")" if e.get("config_source") else "")
for k, v in meds.items():
    m = statistics.median(v)
    unit = "s" if k.startswith("profile") else "ns"
    print(f"| {k} | {len(v)} | {m:.6g} {unit} | {100*(min(v)/m-1):+.2f} % | {100*(max(v)/m-1):+.2f} % | {cfg.get(k, '')} |")
EOF

    # 4. Re-validation of cached winners: the tuned cache, then one with a poor rowsum winner.
    python3 - "$t/cache.json" "$t/cache_poor.json" <<'EOF' >>"$log" 2>&1
import json, sys
c = json.load(open(sys.argv[1]))
c["entries"] = [e for e in c["entries"] if e["op"] == "rowsum"]
for e in c["entries"]:
    e["config"].update({"threads_per_row": 32, "rows_per_block": 1, "vec": 1, "unroll": 1})
json.dump(c, open(sys.argv[2], "w"), indent=0)
EOF
    for c in cache cache_poor; do
        printf '{"schema":"ktune.suite","version":"1.0.0","name":"reval-%s","cache":"%s",
"ops":[{"op":"rowsum","dtype":"f32","shapes":[[4096,2048]],"config":"cached","repeat":30}]}\n' \
            "$c" "$t/$c.json" >"$t/suite_$c.json"
        KTUNE_CACHE=$t/$c.json $k bench "$t/suite_$c.json" -o "$t/reval_$c.json" \
            >"$t/reval_$c.txt" 2>&1
        echo "re-validate $c.json: exit $? ($(grep -c 'stale winner' "$t/reval_$c.txt") stale)" |
            tee -a "$tab"
        grep -E "stale winner|re-validated" "$t/reval_$c.txt" | tee -a "$tab"
    done
    echo "step_guard: $((SECONDS - t0)) s" | tee -a "$tab"
}
