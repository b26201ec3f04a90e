ktune_add_unit_test(unit_worker ${CMAKE_CURRENT_LIST_DIR}/worker/keep_worker_test.cpp)
if(TARGET ktune_cli)
  add_dependencies(unit_worker ktune_cli)
  set_tests_properties(unit_worker PROPERTIES
    ENVIRONMENT "KTUNE_TEST_COMPILE_SERVER=$<TARGET_FILE:ktune_cli>")
endif()
