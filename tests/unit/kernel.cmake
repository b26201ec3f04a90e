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
