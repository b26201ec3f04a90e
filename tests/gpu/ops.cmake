ktune_add_gpu_test(gpu_ops ${CMAKE_CURRENT_LIST_DIR}/ops/tuner_gpu_test.cpp
                   ${CMAKE_CURRENT_LIST_DIR}/ops/kernels_gpu_test.cpp
                   ${CMAKE_CURRENT_LIST_DIR}/ops/any_shape_gpu_test.cpp)
# Candidates run in ktune-worker processes (found in the build tree; named here all the same).
if(TARGET ktune_worker)
  set_tests_properties(gpu_ops PROPERTIES ENVIRONMENT "KTUNE_WORKER=$<TARGET_FILE:ktune_worker>")
endif()
