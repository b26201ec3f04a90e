ktune_add_unit_test(unit_measure
  ${CMAKE_CURRENT_LIST_DIR}/measure/compile_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/measure/compile_batch_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/measure/pipeline_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/measure/protocol_test.cpp)
