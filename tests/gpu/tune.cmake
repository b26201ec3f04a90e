ktune_add_gpu_test(gpu_tune ${CMAKE_CURRENT_LIST_DIR}/tune/runtime_gpu_test.cpp)
if(TARGET ktune_cli)
  # Candidates run in `ktune __worker` processes.
  set_tests_properties(gpu_tune PROPERTIES ENVIRONMENT "KTUNE_WORKER=$<TARGET_FILE:ktune_cli>")
endif()
