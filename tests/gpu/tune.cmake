ktune_add_gpu_test(gpu_tune ${CMAKE_CURRENT_LIST_DIR}/tune/runtime_gpu_test.cpp)
# Candidates run in ktune-worker processes (found in the build tree; named here all the same).
if(TARGET ktune_worker)
  set_tests_properties(gpu_tune PROPERTIES ENVIRONMENT "KTUNE_WORKER=$<TARGET_FILE:ktune_worker>")
endif()
# users' kernels tuned from their specs (tune_request::kernel_spec), then found by the launcher
ktune_add_gpu_test(gpu_tune_kernel ${CMAKE_CURRENT_LIST_DIR}/tune/kernel_tune_gpu_test.cpp)
if(TARGET ktune_worker)
  set_tests_properties(gpu_tune_kernel PROPERTIES ENVIRONMENT "KTUNE_WORKER=$<TARGET_FILE:ktune_worker>")
endif()
