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
# Damaged traces (tests/adversarial/make_damaged_traces.py): exit 2 naming file and byte offset,
# never a hang, an allocation of what a length field claims, or exit 0 with records missing.
set(_dmg tests/data/trace_damage)
ktune_cli_test(top_truncated RC 2 ARGS top ${_dmg}/truncated.ktrace
  EXPECT "truncated.ktrace" "byte" "--allow-incomplete")
ktune_cli_test(top_truncated_allowed RC 0 ARGS top ${_dmg}/truncated.ktrace --allow-incomplete
  EXPECT "INCOMPLETE" "warning")
ktune_cli_test(export_truncated RC 2
  ARGS export ${_dmg}/truncated.ktrace -o ${CMAKE_CURRENT_BINARY_DIR}/truncated_export.json
  EXPECT "truncated.ktrace" "byte")
# A refused export writes nothing (the check runs before the output is opened).
add_test(NAME cli_export_damaged_writes_nothing
  COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:ktune_cli>;export;${_dmg}/truncated.ktrace;-o"
          -DOUT=${CMAKE_CURRENT_BINARY_DIR}/refused_export.json -DRC=2
          -P ${CMAKE_CURRENT_SOURCE_DIR}/no_output.cmake
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_export_damaged_writes_nothing PROPERTIES LABELS "unit;cli" TIMEOUT 60)
ktune_cli_test(roofline_negative_size RC 2 ARGS roofline ${_dmg}/negative_size.ktrace
  EXPECT "negative_size.ktrace" "byte 1983")
ktune_cli_test(top_huge_count RC 2 ARGS top ${_dmg}/huge_count.ktrace
  EXPECT "huge_count.ktrace" "byte 1983" "2147483647 records" REJECT "internal error")
ktune_cli_test(export_huge_raw RC 2
  ARGS export ${_dmg}/huge_raw.ktrace -o ${CMAKE_CURRENT_BINARY_DIR}/huge_raw.json
  EXPECT "huge_raw.ktrace" "byte 1983" REJECT "internal error")
ktune_cli_test(diff_huge_count RC 2 ARGS diff ${_trace} ${_dmg}/huge_count.ktrace
  EXPECT "huge_count.ktrace" "byte 1983")
ktune_cli_test(top_unknown_chunk RC 2 ARGS top ${_dmg}/unknown_type.ktrace
  EXPECT "unknown_type.ktrace" "62 kernels (0 read)")
# Names are bytes from the profiled program: invalid UTF-8 is repaired, never an error.
ktune_cli_test(top_json_bad_utf8 RC 0 ARGS top ${_dmg}/bad_utf8.ktrace --json
  EXPECT "\"schema\": \"ktune.top\"" "_tail" REJECT "internal error")
ktune_cli_test(export_bad_utf8 RC 0
  ARGS export ${_dmg}/bad_utf8.ktrace -o ${CMAKE_CURRENT_BINARY_DIR}/bad_utf8.json
  EXPECT "records to" REJECT "internal error")
ktune_cli_test(diff_json_bad_utf8 RC 1 ARGS diff ${_trace} ${_dmg}/bad_utf8.ktrace -f json
  EXPECT "\"schema\": \"ktune.diff\"" REJECT "internal error")
# Found by the adversarial corpus: a damage message quoting invalid UTF-8 broke `top --json`.
ktune_cli_test(top_json_damage_utf8 RC 0
  ARGS top tests/fuzz/corpus/trace_reader/regress_footer_utf8_damage.ktrace --allow-incomplete --json
  EXPECT "\"schema\": \"ktune.top\"" "damaged footer" REJECT "internal error")
