ktune_add_gpu_test(gpu_core ${CMAKE_CURRENT_LIST_DIR}/core/device_gpu_test.cpp)
