# The tuning runtime's CLI surface (issue 7, session 2): the in-place op and --vs-torch.
ktune_cli_test(tune_inplace_op_listed RC 0 ARGS ops
  EXPECT "scale_bias_ (v1)" "output aliases the input" "torch.addcmul(beta, x, gamma, out=x)")
ktune_cli_test(tune_vs_torch_help RC 0 ARGS tune --help EXPECT "--vs-torch" "KTUNE_PYTHON")
# Without a GPU the tune fails first (exit 2), before any PyTorch timing is attempted.
ktune_cli_test(tune_vs_torch_no_gpu RC 2 ENV CUDA_VISIBLE_DEVICES=
  ARGS tune scale_bias_ --shape 64x64 --vs-torch
       --cache ${CMAKE_CURRENT_BINARY_DIR}/tune_vs_torch_no_gpu.json
  EXPECT "no CUDA GPU" REJECT "PyTorch")
