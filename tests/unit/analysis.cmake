ktune_add_unit_test(unit_analysis ${CMAKE_CURRENT_LIST_DIR}/analysis/aggregate_test.cpp
                    ${CMAKE_CURRENT_LIST_DIR}/analysis/top_names_test.cpp)
