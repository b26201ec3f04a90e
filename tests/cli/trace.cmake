# ktune top / export / profile as a user sees them, on the bundled real trace (no GPU needed).
set(_trace examples/data/transformer_layer_h200.ktrace)
ktune_cli_test(top_bundled RC 0 ARGS top ${_trace}
  EXPECT "grouped by kernel" "NVIDIA H200 (sm_90)" "62 kernels" "dropped 0" "GPU timeline: busy"
         "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_bias_TNT" "share" "p95")
ktune_cli_test(top_json RC 0 ARGS top ${_trace} --json --limit 3
  EXPECT "\"schema\": \"ktune.top\"" "\"version\": \"1.1.0\"" "\"rows_omitted\"" "\"busy_pct\"")
ktune_cli_test(top_launch RC 0 ARGS top ${_trace} --by launch --limit 3
  EXPECT "grouped by launch" "grid " "block ")
ktune_cli_test(top_nvtx RC 0 ARGS top ${_trace} ${_trace} --by nvtx
  EXPECT "2 traces" "forward 0" "forward 2" "NVTX range" "own host time")
ktune_cli_test(top_bad_grouping RC 2 ARGS top ${_trace} --by stream
  EXPECT "use kernel, launch, nvtx or nvtx-path")
ktune_cli_test(top_not_a_trace RC 2 ARGS top CMakeLists.txt EXPECT "not a ktune trace")
ktune_cli_test(export_chrome RC 0
  ARGS export ${_trace} --format chrome -o ${CMAKE_CURRENT_BINARY_DIR}/trace_export.json
  EXPECT "records to" "ui.perfetto.dev")
ktune_cli_test(export_csv RC 0
  ARGS export ${_trace} --format csv -o ${CMAKE_CURRENT_BINARY_DIR}/trace_export.csv
  EXPECT "records to")
ktune_cli_test(export_sqlite RC 2
  ARGS export ${_trace} --format sqlite -o ${CMAKE_CURRENT_BINARY_DIR}/trace_export.db
  EXPECT "not supported yet")
ktune_cli_test(profile_no_command RC 2 ARGS profile EXPECT "command is required")
# A program that never initialises CUDA: its exit code is forwarded, no trace is claimed.
ktune_cli_test(profile_exit_code RC 3
  ARGS profile -o ${CMAKE_CURRENT_BINARY_DIR}/noop.ktrace -- sh -c "exit 3"
  EXPECT "no trace written")
ktune_cli_test(profile_nvtx_link_unknown RC 2 ARGS profile --nvtx-link map -- sh -c "exit 0"
  EXPECT "--nvtx-link")
ktune_cli_test(profile_missing_program RC 2 ARGS profile -- ./no-such-program
  EXPECT "cannot run './no-such-program'")
ktune_cli_test(top_nvtx_path_old_trace RC 0 ARGS top ${_trace} --by nvtx-path
  EXPECT "grouped by nvtx-path" "own host time" "forward 1")
# Format 1.1: kernels attributed to the NVTX range open on the launching thread (recorded on an H200).
set(_nvtx_trace examples/data/transformer_layer_nvtx_h200.ktrace)
ktune_cli_test(top_nvtx_path_attributed RC 0 ARGS top ${_nvtx_trace} --by nvtx-path
  EXPECT "kernel time by the NVTX range open on the launching thread" "forward/mlp"
         "forward/attention" "forward/norm" "(no NVTX range)"
  REJECT "own host time")
ktune_cli_test(top_nvtx_attributed RC 0 ARGS top ${_nvtx_trace} --by nvtx
  EXPECT "mlp" "attention" "norm" "67 kernels")
