ktune_add_unit_test(unit_cache
  ${CMAKE_CURRENT_LIST_DIR}/cache/key_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cache/index_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cache/file_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cache/merge_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cache/concurrency_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cache/writers_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cache/format_golden_test.cpp)
