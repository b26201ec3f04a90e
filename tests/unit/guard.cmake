ktune_add_unit_test(unit_guard
  ${CMAKE_CURRENT_LIST_DIR}/guard/sample_stats_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/guard/stats_test.cpp)
