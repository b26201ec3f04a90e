ktune_add_unit_test(unit_metrics
  ${CMAKE_CURRENT_LIST_DIR}/metrics/metric_set_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics/launch_options_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics/device_measure_json_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics/kernel_metrics_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics/roofline_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics/roofline_svg_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics/roofline_svg_layout_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics/range_session_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics/replay_launches_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics/replay_work_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics/roofline_trace_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics/metrics_trace_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics/roofline_report_test.cpp)
# bench/metrics/compare.py reads ncu's CSV on the GPU machine: its parser is checked here.
find_program(KTUNE_PYTHON3 python3)
if(KTUNE_PYTHON3)
  add_test(NAME metrics_compare_py
           COMMAND ${KTUNE_PYTHON3} ${PROJECT_SOURCE_DIR}/bench/metrics/compare_test.py)
endif()
