# GPU step of ktune vs Kernel Tuner on the user kernels of examples/kernels/ (sourced by
# bench/gpu/run.sh; run as `bash bench/gpu/run.sh build kernel_tuner:590`).
#
# For each kernel (matmul M=K=N=1024, reduction N=2^26, stencil 8192x8192) on the same GPU:
#   1. the reference: ktune's exhaustive search with --record-space, $OUT/brute_K.json (Kernel
#      Tuner's cache format); skipped when $KT_BRUTE_DIR/brute_K.json exists (default $OUT), so a
#      reference measured once can be carried into later calls;
#   2. ktune auto, KTUNE_REPS runs (default 2), budget 200, each on a fresh config cache and a cold
#      cubin cache, so compile time counts as it does for Kernel Tuner: $OUT/ktune_K_R.json;
#   3. Kernel Tuner (CuPy backend) through bench/kernel/kernel_tuner_compare.py, the same spec,
#      source, space and launch, with random_sample, genetic_algorithm, dual_annealing, greedy_ils
#      and bayes_opt, max_fevals 200 and a time limit per tune, KT_REPEAT runs a strategy (seeds
#      0.., each in its own process): $OUT/kt_K.jsonl;
# KTUNE_TUNE_ARGS adds arguments to the ktune runs (e.g. --batch 32, a live tune's batch before
# docs/perf/search.md#live-batches capped it, or --pipeline ahead, the batches before
# docs/perf/search.md#streaming); KT_OFF=1 runs ktune alone;
# then bench/kernel/compare_tuners.py judges every run on the reference: $OUT/kernel_tuner.md,
# appended to the summary.
#
# The GPU machine has no network and no kernel_tuner, so its wheels and those of the dependencies
# that machine lacks (not numpy, scipy, cupy; not pandas or pymoo either, which Kernel Tuner
# imports only for strategies and caches not used here) are carried in .whl/ (git-ignored), fetched
# on a machine with network, one name==version at a time, by
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#       --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform any -d .whl NAME==VERSION
# for kernel_tuner 1.5.0, python-constraint2, jsonschema (+ attrs, jsonschema-specifications,
# referencing, rpds-py, typing_extensions), xmltodict, packaging, scikit-learn 1.7.2 (bayes_opt;
# 1.7 needs neither narwhals nor cloudpickle) + joblib 1.5.2, threadpoolctl; and installed here
# with --no-index into $KT_SITE.
#
# GPU time, roughly: Kernel Tuner is bounded by its time limits, 5 strategies x (40 + 20 + 20) s
# = 400 s by default (KT_TIME_MATMUL, KT_TIME_OTHER); ktune's tunes take seconds each; the matmul
# reference (4944 configs, compiled and timed once each) is the largest of the rest. A device call
# holds 10 minutes, so the first call (which measures the references) is best split:
# KT_KERNELS=matmul, then KT_KERNELS="reduction stencil". Each kernel's table is written as soon
# as its runs end, so a step cut short by its time limit keeps the kernels it finished.
step_kernel_tuner() {
    local k=$PWD/build-gpu/tools/ktune-cli/ktune work site=${KT_SITE:-/tmp/site}
    local reps=${KTUNE_REPS:-2} brute_dir=${KT_BRUTE_DIR:-$OUT}
    local strategies=${KT_STRATEGIES:-random_sample,genetic_algorithm,dual_annealing,greedy_ils,bayes_opt}
    work=$(mktemp -d)
    local have_kt=1
    if [ "${KT_OFF:-0}" = 1 ]; then
        echo "kernel_tuner: KT_OFF=1: ktune runs only" | tee -a "$summary"
        have_kt=0
    elif ! ls .whl/kernel_tuner-*.whl >/dev/null 2>&1; then
        echo "kernel_tuner: no .whl/kernel_tuner-*.whl in the tree: Kernel Tuner runs skipped" |
            tee -a "$summary"
        have_kt=0
    elif ! python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target "$site" .whl/*.whl >"$OUT/kt_pip.log" 2>&1; then
        echo "kernel_tuner: installing the wheels failed ($OUT/kt_pip.log): Kernel Tuner runs skipped" |
            tee -a "$summary"
        have_kt=0
    fi
    local pypath=$site${PYTHONPATH:+:$PYTHONPATH}
    if [ $have_kt = 1 ] && ! PYTHONPATH=$pypath python3 -c "import kernel_tuner, cupy" \
        >>"$OUT/kt_pip.log" 2>&1; then
        echo "kernel_tuner: import kernel_tuner, cupy failed ($OUT/kt_pip.log): Kernel Tuner runs skipped" |
            tee -a "$summary"
        have_kt=0
    fi
    { nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
      python3 -c "import cupy; print('cupy', cupy.__version__)" 2>&1
      [ $have_kt = 1 ] && PYTHONPATH=$pypath python3 -c \
          "from importlib.metadata import version as v; print('kernel_tuner', v('kernel_tuner'))"
      date -u; } >"$OUT/kt_machine.txt" 2>&1

    {
        echo "## ktune vs Kernel Tuner on examples/kernels (bench/kernel/compare_tuners.py)"
        echo
        echo '```'
        cat "$OUT/kt_machine.txt"
        echo '```'
        echo
    } | tee "$OUT/kernel_tuner.md" >>"$summary"
    local name problem limit t0 r rc ktunes
    for name in ${KT_KERNELS:-matmul reduction stencil}; do
        case $name in
        matmul) problem=M=1024,N=1024,K=1024 limit=${KT_TIME_MATMUL:-40} ;;
        reduction) problem=N=67108864 limit=${KT_TIME_OTHER:-20} ;;
        stencil) problem=NX=8192,NY=8192 limit=${KT_TIME_OTHER:-20} ;;
        *) echo "kernel_tuner: unknown kernel $name" | tee -a "$summary"; continue ;;
        esac
        local spec=examples/kernels/$name/$name.json
        # 1. The reference. --budget: the default (256) would cut the exhaustive search short.
        if [ -f "$brute_dir/brute_$name.json" ]; then
            [ "$brute_dir" -ef "$OUT" ] || cp "$brute_dir/brute_$name.json" "$OUT/"
            echo "kernel_tuner: $name reference from $brute_dir/brute_$name.json" >>"$OUT/kt_runs.txt"
        else
            t0=$SECONDS
            KTUNE_CUBIN_CACHE=$work/cubin-brute-$name timeout "${KT_BRUTE_TIMEOUT:-420}" \
                "$k" tune --kernel "$spec" --problem "$problem" --strategy exhaustive \
                --budget 1000000 --record-space "$OUT/brute_$name.json" \
                --cache "$work/brute-$name.json" --json \
                >"$OUT/brute_${name}_report.json" 2>>"$OUT/kt_stderr.log"
            rc=$?
            echo "kernel_tuner: $name reference rc=$rc in $((SECONDS - t0)) s" | tee -a "$OUT/kt_runs.txt"
        fi
        # 2. ktune: a fresh config cache (else the second run is a cache hit) and cold cubins.
        #    The device's copy roof and device record (machine facts, measured once a day, not
        #    compile work) are seeded into each cold cubin directory, as a user's machine has
        #    them after its first tune.
        mkdir -p "$work/seed-$name"
        KTUNE_CUBIN_CACHE=$work/seed-$name timeout 120 "$k" tune --kernel "$spec" \
            --problem "$problem" --budget 1 --cache "$work/seed-$name/tuned.json" --json \
            >/dev/null 2>>"$OUT/kt_stderr.log"
        ktunes=()
        for r in $(seq 1 "$reps"); do
            mkdir -p "$work/cubin-$name-$r"
            cp "$work/seed-$name"/copy-gbs-* "$work/seed-$name"/device-*.json \
                "$work/cubin-$name-$r"/ 2>/dev/null
            t0=$(date +%s%N)
            KTUNE_CUBIN_CACHE=$work/cubin-$name-$r timeout 300 "$k" tune --kernel "$spec" \
                --problem "$problem" --budget 200 --seed "$r" --cache "$work/tuned-$name-$r.json" \
                ${KTUNE_TUNE_ARGS:-} --json >"$OUT/ktune_${name}_$r.json" 2>>"$OUT/kt_stderr.log"
            rc=$?
            echo $((($(date +%s%N) - t0) / 1000000)) >"$OUT/ktune_${name}_$r.json.process_ms"
            echo "kernel_tuner: $name ktune run $r rc=$rc process wall $(cat "$OUT/ktune_${name}_$r.json.process_ms") ms" |
                tee -a "$OUT/kt_runs.txt"
            ktunes+=("$OUT/ktune_${name}_$r.json")
        done
        # 3. Kernel Tuner: one process per strategy and run, like each ktune run, so no run finds
        #    kernels that an earlier one compiled (CuPy keeps compiled modules in memory) or a
        #    CUDA context already made.
        if [ $have_kt = 1 ]; then
            rm -f "$OUT/kt_$name.jsonl" # the script appends
            # Each run in a process of its own too: a second tune in one process finds CuPy's
            # modules of the first in memory (200 reduction evaluations: 4.7 s cold, 0.7 s after).
            local strategy rep
            for strategy in ${strategies//,/ }; do
                for rep in $(seq 0 $((${KT_REPEAT:-1} - 1))); do
                    t0=$SECONDS
                    PYTHONPATH=$pypath timeout $((limit * 2 + 60)) python3 bench/kernel/kernel_tuner_compare.py \
                        --kernel "$name" --problem "$problem" --strategies "$strategy" --max-fevals 200 \
                        --time-limit "$limit" --repeat 1 --seed "$rep" --out "$OUT/kt_$name.jsonl" \
                        >>"$OUT/kt_stdout.log" 2>>"$OUT/kt_stderr.log"
                    rc=$?
                    echo "kernel_tuner: $name $strategy seed $rep rc=$rc in $((SECONDS - t0)) s" |
                        tee -a "$OUT/kt_runs.txt"
                done
            done
        fi
        python3 bench/kernel/compare_tuners.py --brute "$OUT/brute_$name.json" --ktune "${ktunes[@]}" \
            --kt "$OUT/kt_$name.jsonl" 2>>"$OUT/kt_stderr.log" | tee -a "$OUT/kernel_tuner.md" "$summary"
    done
    grep '^kernel_tuner ' "$OUT/kt_stderr.log" 2>/dev/null | tail -20 >>"$OUT/kt_runs.txt"
    rm -rf "$work"
}
