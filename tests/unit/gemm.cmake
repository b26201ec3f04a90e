ktune_add_unit_test(unit_gemm
  ${CMAKE_CURRENT_LIST_DIR}/gemm/gemm_space_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gemm/gemm_tune_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gemm/gemm_cache_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gemm/gemm_pad_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gemm/gemm_sm90_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gemm/gemm_mma_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gemm/gemm_gemv_test.cpp)
# bench/gemm/side_by_side.py's CPU parts and sbs_table.py on synthetic results (no torch needed).
find_program(KTUNE_PYTHON3 python3)
if(KTUNE_PYTHON3)
  add_test(NAME gemm_sbs_py COMMAND ${KTUNE_PYTHON3} ${PROJECT_SOURCE_DIR}/bench/gemm/sbs_test.py)
  add_test(NAME gemm_unaligned_py
           COMMAND ${KTUNE_PYTHON3} ${PROJECT_SOURCE_DIR}/bench/gemm/unaligned_test.py)
  # bench/gemm/sm90_tune_table.py and sm90_search.py's composition (ktune's Hopper template).
  add_test(NAME gemm_sm90_py COMMAND ${KTUNE_PYTHON3} ${PROJECT_SOURCE_DIR}/bench/gemm/sm90_test.py)
endif()
# The padded-K copy kernel, the Hopper GEMM template, its mma.sync form and its GEMV through real NVRTC (label nvrtc, which
# the sanitizer pass skips).
ktune_add_unit_test(unit_gemm_nvrtc ${CMAKE_CURRENT_LIST_DIR}/gemm/gemm_pad_nvrtc_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gemm/gemm_sm90_nvrtc_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gemm/gemm_mma_nvrtc_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gemm/gemm_gemv_nvrtc_test.cpp)
set_tests_properties(unit_gemm_nvrtc PROPERTIES LABELS "unit;nvrtc")
