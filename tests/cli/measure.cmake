# The tuning runtime's CLI surface (docs/perf/tune.md#runtime-compile): the in-place op and
# --vs-torch.
ktune_cli_test(tune_inplace_op_listed RC 0 ARGS ops
  EXPECT "scale_bias_ (v3)" "output aliases the input" "torch.addcmul(beta, x, gamma, out=x)")
ktune_cli_test(tune_vs_torch_help RC 0 ARGS tune --help EXPECT "--vs-torch" "KTUNE_PYTHON")
# Without a GPU the tune fails first (exit 2), before any PyTorch timing is attempted.
ktune_cli_test(tune_vs_torch_no_gpu RC 2 ENV CUDA_VISIBLE_DEVICES=
  ARGS tune scale_bias_ --shape 64x64 --vs-torch
       --cache ${CMAKE_CURRENT_BINARY_DIR}/tune_vs_torch_no_gpu.json
  EXPECT "no CUDA GPU" REJECT "PyTorch")

# Several tunes in one process (docs/perf/tune.md#setup-split): shapes x dtypes, or a plan file.
# Every entry is checked before any GPU work; without a GPU the whole plan stops with the no-GPU
# message.
set(_plans ${PROJECT_SOURCE_DIR}/tests/data/tune/plans)
ktune_cli_test(tune_multi_help RC 0 ARGS tune --help
  EXPECT "--plan" "repeat it to tune several" "--keep-worker")
# A kept worker asked for on a machine without a GPU: the same no-GPU error (the worker it
# starts tells its one client and exits).
ktune_cli_test(tune_keep_worker_no_gpu RC 2 ENV CUDA_VISIBLE_DEVICES=
  ARGS tune softmax --shape 64x64 --keep-worker 5
       --cache ${CMAKE_CURRENT_BINARY_DIR}/tune_keep_worker_no_gpu.json
  EXPECT "no CUDA GPU")
# A negative time is a usage error (exit 2) naming the option. "=-3" binds the value to the
# option in every CLI11 version (a bare "-3" may parse as a flag); the check is ktune's exit code
# and the option it names, not the parser's sentence. No GPU is hidden: on a GPU machine a
# missing check would start a tune and exit 0.
ktune_cli_test(tune_keep_worker_negative RC 2 ARGS tune softmax --shape 64x64 --keep-worker=-3
  EXPECT "--keep-worker" REJECT "tuned" "winner")
ktune_cli_test(tune_multi_no_gpu RC 2 ENV CUDA_VISIBLE_DEVICES=
  ARGS tune softmax --shape 64x64 --shape 128x256 --dtype bf16,fp32
       --cache ${CMAKE_CURRENT_BINARY_DIR}/tune_multi_no_gpu.json
  EXPECT "no CUDA GPU" REJECT "strategy auto")
ktune_cli_test(tune_multi_bad_dtype RC 2
  ARGS tune softmax --shape 64x64 --dtype bf16,fp16
  EXPECT "softmax --shape 64x64 --dtype fp16" "unknown dtype 'fp16'")
ktune_cli_test(tune_multi_bad_second_shape RC 2
  ARGS tune softmax --shape 64x64 --shape 64by64
  EXPECT "--shape 64by64" "bad shape '64by64'")
ktune_cli_test(tune_needs_shape RC 2 ARGS tune softmax EXPECT "needs --shape" "--plan FILE")
ktune_cli_test(tune_plan_no_gpu RC 2 ENV CUDA_VISIBLE_DEVICES=
  ARGS tune --plan ${_plans}/plan_ok.json
       --cache ${CMAKE_CURRENT_BINARY_DIR}/tune_plan_no_gpu.json
  EXPECT "no CUDA GPU")
ktune_cli_test(tune_plan_syntax RC 2 ARGS tune --plan ${_plans}/plan_syntax.json
  EXPECT "plan_syntax.json:4:5: not valid JSON")
ktune_cli_test(tune_plan_bad_shape RC 2 ARGS tune --plan ${_plans}/plan_bad_shape.json
  EXPECT "plan_bad_shape.json: /tunes/1: bad shape '8192by8192'")
ktune_cli_test(tune_plan_unknown_key RC 2 ARGS tune --plan ${_plans}/plan_unknown_key.json
  EXPECT "/0/budgett: unknown key")
ktune_cli_test(tune_plan_unknown_op RC 2 ARGS tune --plan ${_plans}/plan_unknown_op.json
  EXPECT "/1: no op named 'gemmm'" "ktune ops")
ktune_cli_test(tune_plan_missing RC 2 ARGS tune --plan ${_plans}/no_such_plan.json
  EXPECT "no_such_plan.json: cannot open the tune plan")
ktune_cli_test(tune_plan_and_op RC 2 ARGS tune softmax --plan ${_plans}/plan_ok.json
  EXPECT "either --plan FILE or an op")
