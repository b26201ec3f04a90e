# ktune tune --space: replay of recorded spaces, no GPU needed.
set(_tune_data ${PROJECT_SOURCE_DIR}/tests/data/tune)
ktune_cli_test(tune_space_random RC 0
  ARGS tune --space ${_tune_data}/kt_small.json --strategy random --repeat 3 --seed 5
  EXPECT "16 recorded: 13 ran, 3 failed" "reached in 3/3 runs" "random search expects: median 8"
         "(16+1)/(1+1) = 8.5")
ktune_cli_test(tune_space_t4_json RC 0
  ARGS tune --space ${_tune_data}/t4_small.json --strategy genetic --repeat 2 --json
  EXPECT "\"schema\": \"ktune.tune.replay\"" "\"version\": \"2.0.0\"" "\"format\": \"t4\""
         "\"median_over_random_median\"" "\"evals_to_target_per_run\"")
ktune_cli_test(tune_space_malformed RC 2
  ARGS tune --space ${_tune_data}/bad_value.json
  EXPECT "bad_value.json" "/cache/32,1,0/tile" "not in the parameter's list")
ktune_cli_test(tune_space_unknown_strategy RC 2
  ARGS tune --space ${_tune_data}/kt_small.json --strategy magic
  EXPECT "unknown search strategy 'magic'" "genetic")
ktune_cli_test(tune_needs_op_or_space RC 2 ARGS tune EXPECT "--space")
ktune_cli_test(tune_space_real RC 0
  ARGS tune --space ${PROJECT_SOURCE_DIR}/examples/data/spaces/pnpoly_RTX_3090.json.gz
       --strategy genetic --repeat 4 --budget 200
  EXPECT "4092 recorded: 3774 ran, 318 failed" "33 configs within 1.05x")
# ktune's Hopper GEMM template's brute-forced space replays (docs/perf/gemm.md#hopper-template).
ktune_cli_test(tune_space_gemm_sm90 RC 0
  ARGS tune --space ${PROJECT_SOURCE_DIR}/examples/data/spaces/gemm_sm90_bf16_4096x4096x4096_H200.json.gz
       --strategy auto --repeat 3 --budget 400
  EXPECT "8772 recorded" "12 configs within 1.05x")
# A live tune's stream replayed (docs/perf/search.md#streaming); an unknown loop is refused.
ktune_cli_test(tune_space_stream RC 0
  ARGS tune --space ${PROJECT_SOURCE_DIR}/examples/data/spaces/pnpoly_RTX_3090.json.gz
       --strategy auto --repeat 3 --budget 300 --batch 16 --pipeline stream
  EXPECT "reached in 3/3 runs")
ktune_cli_test(tune_pipeline_bad RC 2
  ARGS tune --space tests/data/tune/kt_small.json --pipeline sometimes EXPECT "--pipeline")
ktune_cli_test(tune_pipeline_two_loops RC 2
  ARGS tune --space tests/data/tune/kt_small.json --compile-ahead --pipeline stream
  EXPECT "--compile-ahead is --pipeline ahead")
# A shared cache tier with a malformed URL is refused before any GPU work.
ktune_cli_test(tune_redis_bad_url RC 2 ARGS tune softmax --shape 64x64 --redis localhost:6379
  EXPECT "redis://host:port/db")

# Numeric options are checked before anything runs: exit 2 naming the option (the wording of the
# message is CLI11's; only the option name is asserted).
foreach(_bad "--repeat;-1" "--target;nan" "--target;1e999" "--budget;-5" "--seed;-1" "--jobs;1e9")
  list(GET _bad 0 _opt)
  list(GET _bad 1 _val)
  string(REPLACE "-" "" _tag "${_opt}_${_val}")
  ktune_cli_test(tune_replay_bad_${_tag} RC 2
    ARGS tune --space tests/data/tune/kt_small.json ${_opt} ${_val} EXPECT "${_opt}")
endforeach()
ktune_cli_test(diff_bad_alpha RC 2 ARGS diff tests/data/guard/base.json tests/data/guard/base.json
  --alpha nan EXPECT "--alpha")
ktune_cli_test(top_bad_limit RC 2 ARGS top examples/data/transformer_layer_h200.ktrace --limit -1
  EXPECT "--limit")
