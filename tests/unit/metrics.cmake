ktune_add_unit_test(unit_metrics
  ${CMAKE_CURRENT_LIST_DIR}/metrics/metric_set_test.cpp)
