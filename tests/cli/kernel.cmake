# ktune kernel check: the examples pass; every spec of the bad-spec corpus (tests/data/kernel/
# bad, written by make_bad_specs.py) exits 2 with its file name, the line of its error and a
# fragment of the message; a crash (a signal) is never exit 2.
foreach(example matmul reduction stencil decode_gemm decode_gemm_tc)
  ktune_cli_test(kernel_check_${example} RC 0
    ARGS kernel check examples/kernels/${example}/${example}.json
    EXPECT "is valid" "compiled       sm_90 with NVRTC")
endforeach()
# The tensor-core decode GEMM's fp8 variant shares the bf16 kernel's source and space; both
# compile a sample of their spaces beside the default (M = 64: every MTILE is valid, and about
# half of the space stages X in shared memory, XSTAGE 1).
ktune_cli_test(kernel_check_decode_gemm_tc_fp8 RC 0
  ARGS kernel check examples/kernels/decode_gemm_tc/decode_gemm_tc_fp8.json
  EXPECT "is valid" "compiled       sm_90 with NVRTC")
foreach(variant decode_gemm_tc decode_gemm_tc_fp8)
  ktune_cli_test(kernel_check_${variant}_sample RC 0
    ARGS kernel check examples/kernels/decode_gemm_tc/${variant}.json
         --problem M=64,N=11008,K=4096 --sample 6
    EXPECT "is valid" "6 of 6 other configs compiled")
endforeach()
ktune_cli_test(kernel_check_json RC 0
  ARGS kernel check examples/kernels/matmul/matmul.json --problem M=1000,N=512,K=64 --json
  EXPECT "\"schema\": \"ktune.kernel_check\"" "\"version\": \"1.0.0\"" "\"M\": 1000"
         "\"lowered_name\": \"_Z6matmul")
ktune_cli_test(kernel_check_problem_missing_dim RC 2
  ARGS kernel check examples/kernels/matmul/matmul.json --problem M=1000,N=512
  EXPECT "lacks dimension 'K'")
ktune_cli_test(kernel_check_problem_syntax RC 2
  ARGS kernel check examples/kernels/matmul/matmul.json --problem M=1000,N
  EXPECT "'N' has no '=value'")
ktune_cli_test(kernel_check_unknown_arch RC 2
  ARGS kernel check examples/kernels/matmul/matmul.json --arch sm_42 EXPECT "unknown arch 'sm_42'")
ktune_cli_test(kernel_check_missing_file RC 2
  ARGS kernel check tests/data/kernel/no_such_spec.json EXPECT "no_such_spec.json:1:1")
ktune_cli_test(kernel_no_action RC 2 ARGS kernel EXPECT "subcommand")

file(STRINGS ${PROJECT_SOURCE_DIR}/tests/data/kernel/bad/expected.txt ktune_bad_specs
     REGEX "^[a-z_0-9]+\\.json ")
list(LENGTH ktune_bad_specs ktune_bad_count)
if(ktune_bad_count LESS 30)
  message(FATAL_ERROR "tests/data/kernel/bad/expected.txt lists ${ktune_bad_count} specs, < 30")
endif()
foreach(entry IN LISTS ktune_bad_specs)
  string(REGEX MATCH "^([a-z_0-9]+)\\.json ([0-9]+) (.*)$" _ "${entry}")
  set(file ${CMAKE_MATCH_1}.json)
  ktune_cli_test(kernel_bad_${CMAKE_MATCH_1} RC 2
    ARGS kernel check tests/data/kernel/bad/${file}
    EXPECT "${file}:${CMAKE_MATCH_2}:" "${CMAKE_MATCH_3}")
endforeach()

# ktune ops lists the specs under --kernels (or $KTUNE_KERNELS), a broken one with its error.
ktune_cli_test(ops_kernels RC 0 ARGS ops --kernels examples/kernels
  EXPECT "kernel specs under examples/kernels" "matmul (examples/kernels/matmul/matmul.json)"
         "stencil2d")
ktune_cli_test(ops_kernels_env_json RC 0 ENV KTUNE_KERNELS=tests/data/kernel/bad ARGS ops --json
  EXPECT "\"kernels\":" "restriction_unknown_parameter.json" "unknown name 'BLOCKS'")
ktune_cli_test(ops_kernels_missing_dir RC 2 ARGS ops --kernels tests/data/kernel/nowhere
  EXPECT "tests/data/kernel/nowhere")

# The tests that reach NVRTC: the sanitizer pass skips label nvrtc (NVRTC is not instrumented);
# the plain build runs them.
set_tests_properties(cli_kernel_check_matmul cli_kernel_check_reduction cli_kernel_check_stencil
                     cli_kernel_check_decode_gemm cli_kernel_check_decode_gemm_tc
                     cli_kernel_check_decode_gemm_tc_fp8 cli_kernel_check_decode_gemm_tc_sample
                     cli_kernel_check_decode_gemm_tc_fp8_sample
                     cli_kernel_check_json cli_kernel_bad_kernel_not_in_source
                     cli_kernel_bad_reference_kernel_not_in_source
                     cli_kernel_bad_source_compile_error PROPERTIES LABELS "unit;cli;nvrtc")

# --sample compiles other configs of the space: one that does not compile is a finding (exit 1).
ktune_cli_test(kernel_check_sample_finds_corner RC 1
  ARGS kernel check tests/data/kernel/sample/corner.json --sample 5
  EXPECT "1 of 2 other configs compiled" "BLOCK=128:" "the corner this test expects to fail")
ktune_cli_test(kernel_check_sample_clean RC 0
  ARGS kernel check examples/kernels/reduction/reduction.json --sample 4 --json
  EXPECT "\"sampled\":" "\"ok\": true")
ktune_cli_test(kernel_check_sample_bad_count RC 2
  ARGS kernel check examples/kernels/reduction/reduction.json --sample x EXPECT "--sample")
set_tests_properties(cli_kernel_check_sample_finds_corner cli_kernel_check_sample_clean
                     PROPERTIES LABELS "unit;cli;nvrtc")
ktune_cli_test(kernel_check_directory RC 2 ARGS kernel check examples/kernels
  EXPECT "examples/kernels:1:1: is a directory")

# ktune tune --kernel: what is refused before any GPU work (exit 2 naming the problem).
ktune_cli_test(tune_kernel_bad_problem RC 2
  ARGS tune --kernel examples/kernels/matmul/matmul.json --problem M=64,N=64
  EXPECT "lacks dimension 'K'")
ktune_cli_test(tune_kernel_missing_spec RC 2
  ARGS tune --kernel tests/data/kernel/no_such_spec.json EXPECT "no_such_spec.json:1:1")
ktune_cli_test(tune_kernel_with_shape RC 2
  ARGS tune --kernel examples/kernels/matmul/matmul.json --shape 64x64 EXPECT "not an op, --shape")
ktune_cli_test(tune_kernel_two_sources RC 2
  ARGS tune --kernel examples/kernels/matmul/matmul.json --problem M=1,N=1,K=1 --capture x
  EXPECT "give one of --problem, --capture DIR and --misses FILE")
ktune_cli_test(tune_kernel_problem_alone RC 2 ARGS tune softmax --problem M=4
  EXPECT "go with --kernel SPEC")
ktune_cli_test(tune_kernel_no_capture RC 2
  ARGS tune --kernel examples/kernels/matmul/matmul.json --capture tests/data/kernel
  EXPECT "no capture of kernel 'matmul'")
ktune_cli_test(tune_kernel_misses_other_kernel RC 2
  ARGS tune --kernel examples/kernels/matmul/matmul.json
       --misses tests/data/kernel/launcher/misses.golden.jsonl
  EXPECT "no miss of kernel 'matmul'")
ktune_cli_test(tune_kernel_no_misses_file RC 2
  ARGS tune --kernel examples/kernels/matmul/matmul.json --misses tests/data/kernel/none.jsonl
  EXPECT "none.jsonl: no such misses file")
