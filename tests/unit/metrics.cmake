ktune_add_unit_test(unit_metrics
  ${CMAKE_CURRENT_LIST_DIR}/metrics/metric_set_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics/kernel_metrics_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics/roofline_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics/roofline_svg_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics/range_session_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics/roofline_trace_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics/metrics_trace_test.cpp)
