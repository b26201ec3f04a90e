ktune_add_gpu_test(gpu_ops ${CMAKE_CURRENT_LIST_DIR}/ops/tuner_gpu_test.cpp
                   ${CMAKE_CURRENT_LIST_DIR}/ops/kernels_gpu_test.cpp
                   ${CMAKE_CURRENT_LIST_DIR}/ops/any_shape_gpu_test.cpp)
if(TARGET ktune_cli)
  # Candidates run in `ktune __worker` processes.
  set_tests_properties(gpu_ops PROPERTIES ENVIRONMENT "KTUNE_WORKER=$<TARGET_FILE:ktune_cli>")
endif()
