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
add_library(ktune_gpu_trace_kernels OBJECT ${CMAKE_CURRENT_LIST_DIR}/trace/known_launches.cu
                                           ${CMAKE_CURRENT_LIST_DIR}/trace/nvtx_launches.cu)
set_target_properties(ktune_gpu_trace_kernels PROPERTIES CUDA_STANDARD 17 CUDA_ARCHITECTURES 90)
ktune_add_gpu_test(gpu_trace ${CMAKE_CURRENT_LIST_DIR}/trace/trace_gpu_test.cpp
                   ${CMAKE_CURRENT_LIST_DIR}/trace/nvtx_gpu_test.cpp
                   $<TARGET_OBJECTS:ktune_gpu_trace_kernels>)
target_include_directories(ktune_gpu_trace_kernels PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
# Another CUPTI client already active: a real second subscriber, run under `ktune profile`.
add_executable(cupti_holder ${CMAKE_CURRENT_LIST_DIR}/trace/cupti_holder.cu)
set_target_properties(cupti_holder PROPERTIES CUDA_STANDARD 17 CUDA_ARCHITECTURES 90)
target_link_libraries(cupti_holder PRIVATE CUDA::cudart CUDA::cupti)
add_test(NAME gpu_trace_second_client
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/trace/second_client.sh $<TARGET_FILE:ktune_cli>
                 $<TARGET_FILE:cupti_holder> ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(gpu_trace_second_client PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 120)
# Child processes each write their own trace (a launcher starting two CUDA programs).
add_executable(trace_child ${CMAKE_CURRENT_LIST_DIR}/trace/trace_child.cu)
set_target_properties(trace_child PROPERTIES CUDA_STANDARD 17 CUDA_ARCHITECTURES 90)
target_link_libraries(trace_child PRIVATE CUDA::cudart)
add_test(NAME gpu_trace_children
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/trace/children.sh $<TARGET_FILE:ktune_cli>
                 $<TARGET_FILE:trace_child> ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(gpu_trace_children PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 120)
