ktune_add_unit_test(unit_cache
  ${CMAKE_CURRENT_LIST_DIR}/cache/key_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cache/index_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cache/file_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cache/merge_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cache/concurrency_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cache/writers_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cache/format_golden_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cache/redis_url_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cache/report_golden_test.cpp)

# The Redis shared tier against a real redis-server; exit 77 (skipped) where there is none.
add_executable(unit_cache_redis ${CMAKE_CURRENT_LIST_DIR}/cache/shared_tier_test.cpp
                                ${CMAKE_CURRENT_LIST_DIR}/cache/redis_main.cpp)
target_link_libraries(unit_cache_redis PRIVATE ktune_test_support)
if(KTUNE_CATCH_MAJOR EQUAL 3)
  target_link_libraries(unit_cache_redis PRIVATE Catch2::Catch2)
endif()
add_test(NAME unit_cache_redis COMMAND unit_cache_redis)
set_tests_properties(unit_cache_redis PROPERTIES LABELS unit SKIP_RETURN_CODE 77 TIMEOUT 120)
