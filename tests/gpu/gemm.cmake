ktune_add_gpu_test(gpu_gemm ${CMAKE_CURRENT_LIST_DIR}/gemm/gemm_gpu_test.cpp)
