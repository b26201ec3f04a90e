# GPU step of tuning on several GPUs (sourced by bench/gpu/run.sh; run as
# `bash bench/gpu/run.sh build multigpu` on a machine with 2 or more GPUs of one kind).
# A 64-tune plan (4 ops x 8 shapes x 2 dtypes, budget $MULTIGPU_BUDGET each, default 16) tuned
# with `--gpus 0` and with
# `--gpus all`, MULTIGPU_REPS times each, every run on cold cubin and config caches of its own;
# then one more `--gpus all` run with GPU 1's worker killed mid-plan. Writes
# $OUT/multigpu_*.json (each run's ktune.tune_plan_result) and $OUT/multigpu.txt: wall times
# (median, min..max), the speed-up, winners agreeing within the tie band, and the kill run's
# audit (every tune done once). docs/perf/tune.md, "Several GPUs", explains the rules.
step_multigpu() {
    export NCCL_NVLS_ENABLE=0 # NVLink multicast stays off on these machines
    local k=$PWD/build-gpu/tools/ktune-cli/ktune reps=${MULTIGPU_REPS:-3} work
    local budget=${MULTIGPU_BUDGET:-16}
    work=$(mktemp -d)
    local ngpu
    ngpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
    { nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader; date -u; } |
        tee "$OUT/multigpu_machine.txt"
    if [ "$ngpu" -lt 2 ]; then echo "multigpu: $ngpu GPU, needs 2" | tee -a "$summary"; return 1; fi
    python3 - "$work/plan.json" "$budget" <<'PY'
import json, sys
ops = ["softmax", "layernorm", "rowsum", "transpose"]
shapes = ["2048x4096", "4096x4096", "8192x4096", "4096x8192",
          "8192x8192", "16384x4096", "2048x16384", "4096x16384"]
tunes = [{"op": o, "shape": s, "dtype": d, "budget": int(sys.argv[2])}
         for o in ops for s in shapes for d in ("fp32", "bf16")]
json.dump({"schema": "ktune.tune_plan", "version": "1.0.0", "tunes": tunes}, open(sys.argv[1], "w"))
PY
    # Copy bandwidth and the device record measured once, then copied into every run's cubin
    # cache, so no run pays them and every run compiles every candidate (cold cubins). One config
    # cache per GPU: the key is per arch, so a shared one would answer GPU 1's seed from GPU 0's
    # and leave GPU 1's copy bandwidth unmeasured (then paid inside the first timed run).
    mkdir -p "$work/seed"
    local g
    for g in $(seq 0 $((ngpu - 1))); do
        KTUNE_CUBIN_CACHE=$work/seed timeout 60 "$k" tune softmax --shape 1024x1024 --budget 2 \
            --gpus "$g" --cache "$work/seed/tuned-$g.json" --json >/dev/null 2>>"$OUT/multigpu_stderr.log"
    done
    ls "$work"/seed/copy-gbs-* | wc -l | sed 's/^/multigpu: copy-bandwidth records seeded: /' | tee -a "$summary"
    _multigpu_run() { # name gpus [kill]
        local d=$work/$1
        mkdir -p "$d"
        cp "$work"/seed/copy-gbs-* "$work"/seed/device-*.json "$d"/ 2>/dev/null
        local t0 t1
        t0=$(date +%s%N)
        if [ -n "${3:-}" ]; then # kill GPU 1's worker once, a third of the way in
            (sleep "$3"
             for p in $(pgrep -f -- 'ktune-worker' || true); do
                 if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx KTUNE_GPU_ORDINAL=1; then
                     kill -9 "$p" && echo "killed worker pid $p of GPU 1 at ${3}s" >>"$OUT/multigpu_kill.txt"
                     break
                 fi
             done) &
        fi
        KTUNE_CUBIN_CACHE=$d timeout 280 "$k" tune --plan "$work/plan.json" --gpus "$2" \
            --cache "$d/tuned.json" --json >"$OUT/multigpu_$1.json" 2>>"$OUT/multigpu_stderr.log"
        local rc=$?
        wait
        t1=$(date +%s%N)
        echo "$1 gpus=$2 rc=$rc wall_ms=$(((t1 - t0) / 1000000))" | tee -a "$OUT/multigpu_runs.txt"
    }
    : >"$OUT/multigpu_runs.txt"
    : >"$OUT/multigpu_kill.txt"
    local r
    for r in $(seq 1 "$reps"); do
        _multigpu_run "one_$r" 0
        _multigpu_run "all_$r" all
    done
    # The kill lands a third of the way into a 2-GPU run (from the first 2-GPU run's wall).
    local at
    at=$(python3 -c "import json;print(round(json.load(open('$OUT/multigpu_all_1.json'))['wall_s']/3,1))" 2>/dev/null || echo 5)
    _multigpu_run kill all "$at"
    python3 - "$OUT" "$reps" "$ngpu" "$budget" <<'PY' | tee "$OUT/multigpu.txt" | tee -a "$summary"
import json, statistics, sys
out, reps, ngpu, budget = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
def load(n):
    try: return json.load(open(f"{out}/multigpu_{n}.json"))
    except Exception as e: return None
def walls(prefix):
    w = [load(f"{prefix}_{r}") for r in range(1, reps + 1)]
    return [j["wall_s"] for j in w if j], [j for j in w if j]
def fmt(v): return "median %.2f s (min %.2f .. max %.2f, n=%d)" % (statistics.median(v), min(v), max(v), len(v)) if v else "no run"
w1, j1 = walls("one"); wn, jn = walls("all")
print("plan: 64 tunes (4 ops x 8 shapes x 2 dtypes, budget %s), cold cubin + config caches per run" % budget)
print("--gpus 0   wall:", fmt(w1))
print("--gpus all wall:", fmt(wn), "on", ngpu, "GPUs")
if w1 and wn:
    sp = [a / b for a in w1 for b in wn]
    print("speed-up (median 1-GPU wall / median %d-GPU wall): %.2fx (pairwise min %.2f .. max %.2f)" % (
        ngpu, statistics.median(w1) / statistics.median(wn), min(sp), max(sp)))
def winners(j):
    res = []
    for t in j["tunes"]:
        w = t.get("winner")
        res.append((t["op"], t["shape"], t["dtype"], json.dumps(w["config"], sort_keys=True) if w else None, w["median_us"] if w else None))
    return res
def agree(a, b, band=0.03):
    same = within = 0
    for x, y in zip(winners(a), winners(b)):
        if x[3] is None or y[3] is None: continue
        if x[3] == y[3]: same += 1; within += 1
        elif abs(x[4] - y[4]) <= band * min(x[4], y[4]): within += 1
    return same, within
for i, (a, b) in enumerate(zip(j1, jn), 1):
    s, w = agree(a, b)
    print("rep %d: 1-GPU vs %d-GPU winners: same config %d/64, within the 3 %% tie band %d/64" % (i, ngpu, s, w))
if len(j1) >= 2:
    s, w = agree(j1[0], j1[1])
    print("for scale, two 1-GPU runs: same config %d/64, within the 3 %% tie band %d/64" % (s, w))
for j in jn:
    per = {}
    for t in j["tunes"]: per[t.get("ran_on_gpu")] = per.get(t.get("ran_on_gpu"), 0) + 1
    print("tunes per GPU (%d-GPU run):" % ngpu, dict(sorted(per.items())))
k = load("kill")
if k:
    tunes = k["tunes"]
    keys = [(t["op"], t["shape"], t["dtype"]) for t in tunes]
    errors = [t for t in tunes if "error" in t]
    moved = [t for t in tunes if t.get("moved")]
    per = {}
    for t in tunes: per[t.get("ran_on_gpu")] = per.get(t.get("ran_on_gpu"), 0) + 1
    print("kill run: %d tunes reported, %d distinct, %d failed, %d moved off the lost GPU, tunes per GPU %s, wall %.2f s" % (
        len(tunes), len(set(keys)), len(errors), len(moved), dict(sorted(per.items())), k["wall_s"]))
    print("kill run: every tune done once:", len(tunes) == 64 and len(set(keys)) == 64 and not errors)
else:
    print("kill run: no report")
PY
    cat "$OUT/multigpu_kill.txt" | tee -a "$summary"
    rm -rf "$work"
}

# One large tune spread over every GPU: softmax bf16 8192x8192, budget 128, `--gpus 0` vs
# `--gpus all`, MULTIGPU_REPS each on cold caches. Writes $OUT/multigpu_single_*.json and
# $OUT/multigpu_single.txt: wall (median, min..max), winners, the winner's per-GPU medians.
step_multigpu_single() {
    export NCCL_NVLS_ENABLE=0
    local k=$PWD/build-gpu/tools/ktune-cli/ktune reps=${MULTIGPU_REPS:-2} work r g
    work=$(mktemp -d)
    mkdir -p "$work/seed"
    # Copy bandwidth and the device record, once per GPU (a config cache each: see step_multigpu).
    for g in $(seq 0 $(($(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l) - 1))); do
        KTUNE_CUBIN_CACHE=$work/seed timeout 60 "$k" tune softmax --shape 1024x1024 --budget 2 \
            --gpus "$g" --cache "$work/seed/tuned-$g.json" --json >/dev/null 2>>"$OUT/multigpu_stderr.log"
    done
    for r in $(seq 1 "$reps"); do
        for g in 0 all; do
            local d=$work/$g-$r
            mkdir -p "$d"
            cp "$work"/seed/copy-gbs-* "$work"/seed/device-*.json "$d"/ 2>/dev/null
            KTUNE_CUBIN_CACHE=$d timeout 60 "$k" tune softmax --shape 8192x8192 --dtype bf16 \
                --budget 128 --gpus "$g" --cache "$d/tuned.json" --json \
                >"$OUT/multigpu_single_${g}_$r.json" 2>>"$OUT/multigpu_stderr.log"
        done
    done
    python3 - "$OUT" "$reps" <<'PY' | tee "$OUT/multigpu_single.txt" | tee -a "$summary"
import json, statistics, sys
out, reps = sys.argv[1], int(sys.argv[2])
for g in ("0", "all"):
    runs = []
    for r in range(1, reps + 1):
        try: runs.append(json.load(open(f"{out}/multigpu_single_{g}_{r}.json")))
        except Exception: pass
    w = [j["wall_s"] for j in runs]
    if not w: print("--gpus", g, "no run"); continue
    print("single tune softmax bf16 8192x8192 budget 128 --gpus %s: wall median %.2f s (min %.2f .. max %.2f, n=%d), GPU busy median %.2f s" % (
        g, statistics.median(w), min(w), max(w), len(w), statistics.median([j["gpu_busy_s"] for j in runs])))
    for j in runs:
        win = j.get("winner", {})
        per = ", ".join("GPU %d %.2f us (n=%d)" % (p["gpu"], p["median_us"], p["samples"]) for p in win.get("per_gpu", []))
        print("   winner %s %.2f us, tied %d%s" % (json.dumps(win.get("config"), sort_keys=True), win.get("median_us", 0), j.get("tied", 0), "; per GPU: " + per if per else ""))
PY
    rm -rf "$work"
}
