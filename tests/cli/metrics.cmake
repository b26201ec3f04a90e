# ktune roofline on the synthetic H200 fixture (tests/data/metrics/README.md).
set(_rf tests/data/metrics/h200_synthetic.kernel_metrics.json)
ktune_cli_test(roofline_table RC 0 ARGS roofline ${_rf}
  EXPECT "Roofline of 6 kernels on H200" "2 replay passes" "bound by" "launch " "compute " "memory "
         "latency " "CUDA graphs" "tile shape" "tensor cores" "latency hiding"
         "not profiled (deny-list, never serialised): ncclDevKernel")
ktune_cli_test(roofline_json RC 0 ARGS roofline ${_rf} --json
  EXPECT "\"schema\": \"ktune.roofline\"" "\"version\": \"1.1.0\"" "\"class\": \"launch\""
         "\"bound_by\": \"DRAM\""
         "\"intensity\": 0.0")
ktune_cli_test(roofline_other_gpu RC 0 ARGS roofline ${_rf} --gpu "H100 SXM"
  EXPECT "on H100 SXM" "DRAM" REJECT "on H200")
ktune_cli_test(roofline_svg RC 0 ARGS roofline ${_rf} --svg ${CMAKE_CURRENT_BINARY_DIR}/roofline.svg
  EXPECT "chart: ")
ktune_cli_test(roofline_unknown_gpu RC 2 ARGS roofline ${_rf} --gpu Voodoo2
  EXPECT "Voodoo2" "ktune device --list")
ktune_cli_test(roofline_wrong_schema RC 2 ARGS roofline tests/data/metrics/wrong_schema.json
  EXPECT "wrong_schema.json: /schema")
ktune_cli_test(roofline_missing_file RC 2 ARGS roofline tests/data/metrics/nope.json
  EXPECT "nope.json")
# Hiding every GPU gives the no-GPU path of --measure on any machine.
ktune_cli_test(device_measure_no_gpu RC 2 ENV CUDA_VISIBLE_DEVICES= ARGS device --measure
  EXPECT "ktune device --measure:")
ktune_cli_test(roofline_measured_peaks RC 0
  ARGS roofline ${_rf} --peaks tests/data/metrics/h200_measured_peaks.json
  EXPECT "measured (ktune device --measure)" "188.1" REJECT "206.1")
# ktune profile --metrics: a bad request is refused before the program runs.
ktune_cli_test(profile_metrics_bad_sample RC 2
  ARGS profile --metrics roofline --sample 1/0 -o ${CMAKE_CURRENT_BINARY_DIR}/x.ktrace -- true
  EXPECT "--sample '1/0'")
ktune_cli_test(profile_metrics_bad_regex RC 2
  ARGS profile --metrics roofline --kernels "(gemm" -o ${CMAKE_CURRENT_BINARY_DIR}/x.ktrace -- true
  EXPECT "--kernels '(gemm' is not a valid regular expression")
ktune_cli_test(profile_metrics_bad_deny RC 2
  ARGS profile --metrics roofline --deny "[" -o ${CMAKE_CURRENT_BINARY_DIR}/x.ktrace -- true
  EXPECT "--deny '['")
ktune_cli_test(profile_metrics_empty_set RC 2
  ARGS profile --metrics " , " -o ${CMAKE_CURRENT_BINARY_DIR}/x.ktrace -- true
  EXPECT "empty metric set")
# A trace recorded without --metrics has no metrics chunk: say how to record one.
ktune_cli_test(roofline_trace_without_metrics RC 2
  ARGS roofline examples/data/transformer_layer_h200.ktrace
  EXPECT "no metrics in this trace" "ktune profile --metrics roofline")
# A real trace of `ktune profile --metrics roofline` (H200, PyTorch transformer layer): the
# metrics chunk joined to its launches, precision measured (cuDNN's fp16 wgmma attention).
set(_rt tests/data/metrics/h200_transformer_layer.metrics.ktrace)
ktune_cli_test(roofline_from_trace RC 0 ARGS roofline ${_rt}
  EXPECT "Roofline of 10 kernels on H200" "3 replay passes"
         "joined to their launches by correlation id: 10 of 10" "cudnn_generated_fort_native_sdpa"
         "compute " "latency " "launch ")
ktune_cli_test(roofline_from_trace_json RC 0 ARGS roofline ${_rt} --json
  EXPECT "\"joined_by_correlation\": 10" "\"precision\": \"BF16/FP16 tensor\"" "\"launch_index\"")
# --cache-control takes all (ncu's default flush) or none; anything else is a usage error.
ktune_cli_test(profile_metrics_bad_cache_control RC 2
  ARGS profile --metrics roofline --cache-control some -o ${CMAKE_CURRENT_BINARY_DIR}/x.ktrace -- true
  EXPECT "--cache-control")
# A real H200 trace with the level metrics (tests/data/metrics/README.md): memory-bound kernels
# name the level that binds them, with its lever.
ktune_cli_test(roofline_levels_from_trace RC 0
  ARGS roofline tests/data/metrics/h200_suite_levels.metrics.ktrace --latency-pct 60
  EXPECT "Roofline of 17 kernels on H200" "3 replay passes" "joined to their launches by correlation id: 17 of 17"
         "memory   L1/shared" "feeding the tensor cores" "register tiling" "compute  issue"
         "memory   DRAM")
# --replay launches: the report says where each kernel's passes came from and what is missing.
set(_rl tests/data/metrics/h200_synthetic_launches.kernel_metrics.json)
ktune_cli_test(roofline_replay_launches RC 0 ARGS roofline ${_rl}
  EXPECT "3 passes per kernel, one per natural launch (no replay)"
         "2 kernels launched fewer times than the set has passes"
         "incomplete: at::native::distribution_elementwise_grid_stride_kernel, cudnn_rare_kernel"
         REJECT "replay passes")
ktune_cli_test(roofline_replay_launches_json RC 0 ARGS roofline ${_rl} --json
  EXPECT "\"replay\": \"launches\"" "\"incomplete_kernels\": 2" "\"pass_launches\": 3")
ktune_cli_test(profile_metrics_bad_replay RC 2
  ARGS profile --metrics roofline --replay application -o ${CMAKE_CURRENT_BINARY_DIR}/x.ktrace -- true
  EXPECT "--replay")
# --replay launches on a PyTorch training loop (H200, docs/perf/metrics.md#training-loop): the 10
# hottest kernels in one sequence of 3 passes; cuBLAS's persistent NNT GEMM ran several problem
# sizes on one grid, so its passes mixed different work (launch times 14.6..44.4 us): left out and
# named, not plotted at an impossible 254 % of the tensor roof.
ktune_cli_test(roofline_mixed_work RC 0
  ARGS roofline tests/data/metrics/h200_train_launches.metrics.ktrace
  EXPECT "Roofline of 9 kernels" "joined to their launches by correlation id: 9 of 9"
         "1 kernel samples left out: their passes came from launches"
         "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT: 14.6..44.4 us"
         "many kernels per pass")
# Samples told apart by work (a Llama-style layer's training step on an H100): every nvjet GEMM
# problem is its own sample, tagged with its work, plotted; the mixed-work refusal stays as the
# last line of defence for the 3 samples keyed by shape alone (PyTorch reductions and an add
# whose arguments change from launch to launch).
ktune_cli_test(roofline_work_samples RC 0
  ARGS roofline tests/data/metrics/h100_llama_train_launches.metrics.ktrace
  EXPECT "Roofline of 62 kernels" "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT [w:4dba]"
         "3 kernel samples left out" "reduce_kernel<512, 1"
  REJECT "coopA_NNT: " "coopA_NTT: ")
# The same forward on an H200 once a given-up sequence submits its remaining passes
# (docs/perf/metrics.md#llama-layer-h200): every sample from all 3 passes, all plotted.
ktune_cli_test(roofline_forward_all_passes RC 0
  ARGS roofline tests/data/metrics/h200_llama_forward_launches.metrics.ktrace
  EXPECT "Roofline of 25 kernels on H200" "joined to their launches by correlation id: 25 of 25"
         "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT [w:7c9f]" "flash_fprop"
  REJECT "of the set's 3 passes" "left out")
# Pass sequences CUPTI ended after one pass: the refusal names the missing passes.
ktune_cli_test(roofline_one_pass_of_three RC 2
  ARGS roofline tests/data/metrics/h100_llama_forward_onepass.metrics.ktrace
  EXPECT "came from 1 of the set's 3 passes" "--replay kernel")
