ktune_add_unit_test(unit_trace
  ${CMAKE_CURRENT_LIST_DIR}/trace/trace_file_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace/hostile_trace_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace/session_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace/export_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace/nvtx_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace/nvtx_real_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace/nvtx_static_injection.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace/launch_links_test.cpp)
# The seam tests build synthetic CUPTI records: they need CUPTI's headers (not its GPU).
target_include_directories(unit_trace PRIVATE ${CUDAToolkit_INCLUDE_DIRS}
                                              ${CUDAToolkit_CUPTI_INCLUDE_DIR})
target_link_libraries(unit_trace PRIVATE ${CUDA_cupti_LIBRARY})
