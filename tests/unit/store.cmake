ktune_add_unit_test(unit_store
  ${CMAKE_CURRENT_LIST_DIR}/store/sketch_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/store/store_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/store/run_sampling_test.cpp)
# Against a throwaway PostgreSQL server; skipped (77) where its binaries or libpq are missing.
add_executable(unit_store_pg ${CMAKE_CURRENT_LIST_DIR}/store/pg_test.cpp)
target_link_libraries(unit_store_pg PRIVATE ktune_test_support)
if(KTUNE_CATCH_MAJOR EQUAL 3)
  target_link_libraries(unit_store_pg PRIVATE Catch2::Catch2)
endif()
add_test(NAME unit_store_pg COMMAND unit_store_pg)
set_tests_properties(unit_store_pg PROPERTIES LABELS unit SKIP_RETURN_CODE 77 TIMEOUT 300)
