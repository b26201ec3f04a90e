ktune_add_gpu_test(gpu_metrics ${CMAKE_CURRENT_LIST_DIR}/metrics/range_gpu_test.cpp)
# Its case "measured peaks are near the datasheet" times the GPU's FMA and DRAM rates: beside
# other GPU tests (`ctest -L gpu -j 3`) it measured 29.4 of the H200's 67 FP32 TFLOP/s and
# failed its 0.5x bound. Alone, it measures the GPU, not the neighbours.
set_tests_properties(gpu_metrics PROPERTIES RUN_SERIAL TRUE)
