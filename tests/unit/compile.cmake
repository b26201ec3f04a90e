ktune_add_unit_test(unit_compile
  ${CMAKE_CURRENT_LIST_DIR}/compile/compile_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compile/compile_batch_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compile/compile_server_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compile/program_groups_test.cpp)
# Real compile servers: ktune-worker in compile mode.
add_dependencies(unit_compile ktune_worker)
set_tests_properties(unit_compile PROPERTIES
  ENVIRONMENT "KTUNE_TEST_COMPILE_SERVER=$<TARGET_FILE:ktune_worker>")
