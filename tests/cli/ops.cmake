# ktune ops and the op mode of ktune tune. No GPU needed: listing, validation, replay.
ktune_cli_test(ops_list RC 0 ARGS ops
  EXPECT "softmax (v10)" "layernorm (v13)" "rowsum (v5)" "transpose (v6)" "threads_per_row"
         "valid configs at 8192x8192: fp32 231, bf16 318" "torch.softmax"
         "arguments: x[rows * cols], gamma[cols], beta[cols], y[rows * cols] out, int rows, int cols")
ktune_cli_test(ops_json RC 0 ARGS ops --json --shape 1024x131072
  EXPECT "\"schema\": \"ktune.ops\"" "\"version\": \"1.2.0\"" "\"valid_configs\"" "\"tile\""
         "\"dimensions\"" "\"value\": \"cols\"")
ktune_cli_test(ops_bad_shape RC 2 ARGS ops --shape 8192 EXPECT "ROWSxCOLS")
ktune_cli_test(tune_op_unknown RC 2 ARGS tune nosuchop --shape 8x8
  EXPECT "no op named 'nosuchop'" "softmax, layernorm, rowsum, transpose")
ktune_cli_test(tune_op_bad_dtype RC 2 ARGS tune softmax --shape 64x64 --dtype fp8
  EXPECT "unknown dtype 'fp8'")
# Hiding every GPU: a clear no-GPU error, never a crash (a worker started ahead exits at EOF).
ktune_cli_test(tune_op_no_gpu RC 2 ENV CUDA_VISIBLE_DEVICES= ARGS tune softmax --shape 64x64
  --cache ${CMAKE_CURRENT_BINARY_DIR}/tune_op_no_gpu.json EXPECT "no CUDA GPU")
# The brute-forced H200 spaces replay like any Kernel Tuner recording.
ktune_cli_test(tune_replay_h200_softmax RC 0
  ARGS tune --space examples/data/spaces/softmax_bf16_8192x8192_H200.json --budget 40 --repeat 3
  EXPECT "evaluations to 1.05x optimum")
ktune_cli_test(tune_replay_h200_transpose RC 0
  ARGS tune --space examples/data/spaces/transpose_fp32_8192x8192_H200.json --budget 20 --repeat 3
  EXPECT "evaluations to 1.05x optimum")
