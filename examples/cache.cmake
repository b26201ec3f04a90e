# examples/cache_lookup.cpp: look a tuned config up and launch a kernel with it. The file holds
# device code, so it is compiled as CUDA (only where nvcc is found).
include(CheckLanguage)
check_language(CUDA)
if(CMAKE_CUDA_COMPILER)
  enable_language(CUDA)
  set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/cache_lookup.cpp PROPERTIES LANGUAGE CUDA)
  add_executable(example_cache_lookup ${CMAKE_CURRENT_LIST_DIR}/cache_lookup.cpp)
  # sm_80 code plus PTX: runs on every GPU CUDA 13 supports from Ampere on (JIT above sm_80).
  set_target_properties(example_cache_lookup PROPERTIES CUDA_ARCHITECTURES 80 CUDA_STANDARD 20)
  target_link_libraries(example_cache_lookup PRIVATE ktune::ktune)
else()
  message(STATUS "ktune: no nvcc, example_cache_lookup is not built")
endif()
