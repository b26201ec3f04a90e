# ktune bench / ktune diff as a user and CI see them: exit codes and key output.
set(_g tests/data/guard)
ktune_cli_test(diff_regression RC 1 ARGS diff ${_g}/base.json ${_g}/cand_slower.json
  EXPECT "SLOWER" "gemm_bf16" "kernel time" "launch count" "new kernel" "FAIL (regression" "missing key")
ktune_cli_test(diff_pass_pooled RC 0 ARGS diff ${_g}/base.json ${_g}/base_run2.json
  ${_g}/cand_same.json EXPECT "PASS" "base_run2.json" REJECT "SLOWER")
ktune_cli_test(diff_candidate_option RC 0 ARGS diff ${_g}/base.json -c ${_g}/cand_same.json
  -c ${_g}/base_run2.json EXPECT "PASS")
ktune_cli_test(diff_environment RC 1 ARGS diff ${_g}/base.json ${_g}/cand_env.json --format md
  EXPECT "| slower |" "clock or environment" "driver 580.159.04 -&gt; 575.57.08")
ktune_cli_test(diff_threshold RC 0 ARGS diff ${_g}/base.json ${_g}/cand_env.json -t 10%
  EXPECT "PASS" "threshold 10 %")
ktune_cli_test(diff_json RC 1 ARGS diff ${_g}/base.json ${_g}/cand_slower.json -f json
  EXPECT "\"schema\": \"ktune.diff\"" "\"version\": \"1.1.0\"" "\"exit_code\": 1")
ktune_cli_test(diff_junit RC 1 ARGS diff ${_g}/base.json ${_g}/cand_slower.json -f junit
  EXPECT "<testsuites" "<failure" "<skipped")
ktune_cli_test(diff_inconclusive RC 3 ARGS diff ${_g}/base.json ${_g}/cand_few.json
  EXPECT "too few samples" "INCONCLUSIVE")
ktune_cli_test(diff_bad_sample RC 2 ARGS diff ${_g}/base.json ${_g}/bad_sample.json
  EXPECT "entries[0].samples[1]: not a finite number")
ktune_cli_test(diff_bad_version RC 2 ARGS diff ${_g}/base.json ${_g}/bad_version.json
  EXPECT "'2.0.0' is not version 1.x")
ktune_cli_test(diff_not_json RC 2 ARGS diff ${_g}/base.json ${_g}/not_json.json
  EXPECT "not_json.json:4:1: not valid JSON")
ktune_cli_test(diff_one_file RC 2 ARGS diff ${_g}/base.json EXPECT "needs a baseline and a candidate")
ktune_cli_test(diff_bad_format RC 2 ARGS diff ${_g}/base.json ${_g}/cand_same.json -f html
  EXPECT "unknown report format 'html'")
ktune_cli_test(diff_bad_threshold RC 2 ARGS diff ${_g}/base.json ${_g}/cand_same.json -t 5x
  EXPECT "--threshold '5x'")
ktune_cli_test(bench_commands RC 0
  ARGS bench ${_g}/suite_commands.json -o ${CMAKE_CURRENT_BINARY_DIR}/guard_bench.json --repeat 3
  EXPECT "suite 'smoke', 2 entries measured")
# Hiding every GPU gives the no-GPU path of op entries on any machine, GPU machines included.
ktune_cli_test(bench_ops_unavailable RC 2 ENV CUDA_VISIBLE_DEVICES=
  ARGS bench ${_g}/suite_ops.json -o ${CMAKE_CURRENT_BINARY_DIR}/guard_ops.json
  EXPECT "no usable GPU" "--skip-unavailable")
ktune_cli_test(bench_ops_skipped RC 0 ENV CUDA_VISIBLE_DEVICES=
  ARGS bench ${_g}/suite_ops.json -o ${CMAKE_CURRENT_BINARY_DIR}/guard_ops.json --skip-unavailable
  EXPECT "4 unavailable" "no usable GPU" REJECT "FAILED")
ktune_cli_test(bench_failing_command RC 2
  ARGS bench ${_g}/suite_failing.json -o ${CMAKE_CURRENT_BINARY_DIR}/guard_fail.json
  EXPECT "command 'false' (run 1 of 4) exited with status 1")
ktune_cli_test(bench_bad_suite RC 2 ARGS bench ${_g}/suite_bad.json
  EXPECT "commands[0].repeat")
# Broken candidates fail the gate or are input errors, never a pass (docs/formats.md#ktunediff).
ktune_cli_test(diff_failed_entry RC 1 ARGS diff ${_g}/base.json ${_g}/cand_failed.json
  EXPECT "FAILED" "softmax_f32 8192x8192" "exit status 139" REJECT "PASS")
ktune_cli_test(diff_missing_key RC 1 ARGS diff ${_g}/base.json ${_g}/cand_missing.json
  EXPECT "FAILED" "removed_op" "missing key" REJECT "PASS")
ktune_cli_test(diff_zero_samples RC 2 ARGS diff ${_g}/base.json ${_g}/cand_zero.json
  EXPECT "cand_zero.json" "gemm_bf16 4096x4096x4096" "every sample is 0")
ktune_cli_test(diff_negative_sample RC 2 ARGS diff ${_g}/base.json ${_g}/cand_negative.json
  EXPECT "cand_negative.json" "layernorm_f32 8192x8192" "negative")
ktune_cli_test(diff_duplicate_key RC 2 ARGS diff ${_g}/base.json ${_g}/cand_duplicate.json
  EXPECT "cand_duplicate.json" "entries[5]" "entries[1]" "softmax_f32 8192x8192")
ktune_cli_test(diff_number_overflow RC 2 ARGS diff ${_g}/base.json ${_g}/overflow.json
  EXPECT "overflow.json" "samples" REJECT "internal error")
ktune_cli_test(diff_inconclusive_json RC 3 ARGS diff ${_g}/base.json ${_g}/cand_few.json -f json
  EXPECT "\"outcome\": \"inconclusive\"" "\"exit_code\": 3" "too few samples")
