ktune_add_unit_test(unit_measure
  ${CMAKE_CURRENT_LIST_DIR}/measure/copy_gbs_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/measure/copy_kernels_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/measure/pipeline_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/measure/protocol_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/measure/tuner_plan_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/measure/device_record_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/measure/utility_kernels_test.cpp)
