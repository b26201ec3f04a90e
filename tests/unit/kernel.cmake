# the kernel module: expressions, problems, specs, spaces, the check report (no GPU)
ktune_add_unit_test(unit_kernel ${CMAKE_CURRENT_LIST_DIR}/kernel/expr_test.cpp
                    ${CMAKE_CURRENT_LIST_DIR}/kernel/problem_test.cpp
                    ${CMAKE_CURRENT_LIST_DIR}/kernel/spec_test.cpp
                    ${CMAKE_CURRENT_LIST_DIR}/kernel/json_locator_test.cpp
                    ${CMAKE_CURRENT_LIST_DIR}/kernel/builder_test.cpp)
# The examples through NVRTC: label nvrtc, which the sanitizer pass skips (NVRTC is not
# instrumented; the plain build runs it).
ktune_add_unit_test(unit_kernel_nvrtc ${CMAKE_CURRENT_LIST_DIR}/kernel/nvrtc_examples_test.cpp)
set_tests_properties(unit_kernel_nvrtc PROPERTIES LABELS "unit;nvrtc")
# the run-time launcher on a fake driver: tiers, geometry, arguments, misses (no NVRTC), then
# compile-once, threads and capture through real NVRTC compiles (label nvrtc)
ktune_add_unit_test(unit_kernel_launch ${CMAKE_CURRENT_LIST_DIR}/kernel/launch_test.cpp)
ktune_add_unit_test(unit_kernel_launch_nvrtc ${CMAKE_CURRENT_LIST_DIR}/kernel/launch_nvrtc_test.cpp)
set_tests_properties(unit_kernel_launch_nvrtc PROPERTIES LABELS "unit;nvrtc")
# The matmul host example: without a GPU it prints its plan (exit 0); with one it launches
# through the launcher and checks C against the host (exit 1 on a mismatch).
if(TARGET example_kernel_matmul)
  add_test(NAME example_kernel_matmul COMMAND example_kernel_matmul)
  set_tests_properties(example_kernel_matmul PROPERTIES LABELS unit TIMEOUT 120)
endif()
