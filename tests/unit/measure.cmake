ktune_add_unit_test(unit_measure
  ${CMAKE_CURRENT_LIST_DIR}/measure/compile_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/measure/compile_batch_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/measure/compile_server_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/measure/copy_gbs_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/measure/pipeline_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/measure/protocol_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/measure/tuner_plan_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/measure/keep_worker_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/measure/device_record_test.cpp)
if(TARGET ktune_cli)
  # Real compile servers: the ktune binary in compile mode.
  add_dependencies(unit_measure ktune_cli)
  set_tests_properties(unit_measure PROPERTIES
    ENVIRONMENT "KTUNE_TEST_COMPILE_SERVER=$<TARGET_FILE:ktune_cli>")
endif()
