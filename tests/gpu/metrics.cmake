ktune_add_gpu_test(gpu_metrics ${CMAKE_CURRENT_LIST_DIR}/metrics/range_gpu_test.cpp)
