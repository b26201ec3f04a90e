ktune_add_unit_test(unit_gemm
  ${CMAKE_CURRENT_LIST_DIR}/gemm/gemm_space_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gemm/gemm_tune_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gemm/gemm_cache_test.cpp)
