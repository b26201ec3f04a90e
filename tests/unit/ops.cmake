ktune_add_unit_test(unit_ops ${CMAKE_CURRENT_LIST_DIR}/ops/ops_test.cpp
                    ${CMAKE_CURRENT_LIST_DIR}/ops/defaults_test.cpp
                    ${CMAKE_CURRENT_LIST_DIR}/ops/staged_forms_test.cpp
                    ${CMAKE_CURRENT_LIST_DIR}/ops/layernorm_rows_test.cpp
                    ${CMAKE_CURRENT_LIST_DIR}/ops/softmax_exp_once_test.cpp
                    ${CMAKE_CURRENT_LIST_DIR}/ops/any_shape_defaults_test.cpp
                    ${CMAKE_CURRENT_LIST_DIR}/ops/ops_report_test.cpp)
# Every kernel form through NVRTC (no GPU): its own executable so ctest runs it beside the rest.
ktune_add_unit_test(unit_ops_nvrtc ${CMAKE_CURRENT_LIST_DIR}/ops/nvrtc_forms_test.cpp)
# NVRTC compiling every kernel form: the sanitizer build skips it (label nvrtc), since NVRTC is
# not instrumented and the plain build already runs it.
set_tests_properties(unit_ops_nvrtc PROPERTIES LABELS "unit;nvrtc")
