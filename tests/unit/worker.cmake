ktune_add_unit_test(unit_worker ${CMAKE_CURRENT_LIST_DIR}/worker/keep_worker_test.cpp
                    ${CMAKE_CURRENT_LIST_DIR}/worker/run_config_test.cpp)
# The worker is the build tree's ktune-worker, found by the library itself (no CLI needed).
add_dependencies(unit_worker ktune_worker)
