# GPU test of the trace module: the known launch sequence is CUDA code compiled by nvcc (its
# own object library, so the CUDA language is enabled only here and no ktune flags reach nvcc).
include(CheckLanguage)
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  message(STATUS "ktune: no CUDA compiler: gpu_trace is not built")
  return()
endif()
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES 90)
endif()
enable_language(CUDA)
add_library(ktune_gpu_trace_kernels OBJECT ${CMAKE_CURRENT_LIST_DIR}/trace/known_launches.cu)
set_target_properties(ktune_gpu_trace_kernels PROPERTIES CUDA_STANDARD 17 CUDA_ARCHITECTURES 90)
ktune_add_gpu_test(gpu_trace ${CMAKE_CURRENT_LIST_DIR}/trace/trace_gpu_test.cpp
                   $<TARGET_OBJECTS:ktune_gpu_trace_kernels>)
