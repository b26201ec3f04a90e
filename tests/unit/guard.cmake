ktune_add_unit_test(unit_guard
  ${CMAKE_CURRENT_LIST_DIR}/guard/sample_stats_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/guard/op_runtime_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/guard/stats_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/guard/hl_select_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/guard/compare_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/guard/broken_candidate_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/guard/results_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/guard/trace_series_test.cpp)
# op_runtime_test times on a GPU where there is one, in ktune-worker.
add_dependencies(unit_guard ktune_worker)
