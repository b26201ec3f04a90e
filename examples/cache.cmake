# examples/cache_lookup.cpp: look a tuned config up and launch a kernel with it. The kernel is
# in its own CUDA library (C++17), the lookup side is C++20 against ktune::ktune.
include(CheckLanguage)
check_language(CUDA)
if(CMAKE_CUDA_COMPILER)
  enable_language(CUDA)
  add_library(example_cache_saxpy STATIC ${CMAKE_CURRENT_LIST_DIR}/cache_saxpy.cu)
  # sm_80 code plus PTX: runs on every GPU CUDA 13 supports from Ampere on (JIT above sm_80).
  set_target_properties(example_cache_saxpy PROPERTIES CUDA_ARCHITECTURES 80 CUDA_STANDARD 17)
  target_link_libraries(example_cache_saxpy PUBLIC CUDA::cudart)
  add_executable(example_cache_lookup ${CMAKE_CURRENT_LIST_DIR}/cache_lookup.cpp)
  target_link_libraries(example_cache_lookup PRIVATE ktune::ktune example_cache_saxpy
                                                     ktune_build_flags)
else()
  message(STATUS "ktune: no nvcc, example_cache_lookup is not built")
endif()
