# ktune tune gemm: bad input is refused before any GPU work, exit 2 saying what to change.
ktune_cli_test(tune_gemm_shape_not_mnk RC 2 ARGS tune gemm --shape 16x4096
  EXPECT "not MxNxK" "16x4096x4096")
ktune_cli_test(tune_gemm_bad_dtype RC 2 ARGS tune gemm --shape 16x64x64 --dtype fp32
  EXPECT "unknown dtype 'fp32'" "bf16, fp16, fp8")
ktune_cli_test(tune_gemm_bad_layout RC 2 ARGS tune gemm --shape 16x64x64 --layout xn
  EXPECT "unknown layout 'xn'" "nn, nt, tn, tt")
ktune_cli_test(tune_gemm_fp8_layout RC 2 ARGS tune gemm --shape 16x64x64 --dtype fp8 --layout nn
  EXPECT "--layout tn")
ktune_cli_test(tune_gemm_needs_shape RC 2 ARGS tune gemm EXPECT "--shape MxNxK")
ktune_cli_test(tune_gemm_plan_other_op RC 2
  ARGS tune gemm --plan ${PROJECT_SOURCE_DIR}/tests/data/gemm/plan_other_op.json
  EXPECT "plan_other_op.json: /tunes/1" "op 'softmax'")
ktune_cli_test(tune_gemm_bad_b_operand RC 2 ARGS tune gemm --shape 1x4096x4096 --b-operand constant
  EXPECT "--b-operand" "weights")
