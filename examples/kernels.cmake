# examples/kernels/*/host.cpp: applications launching a user kernel through the run-time
# launcher (kernel/launcher.hpp). Built without nvcc: the kernels compile at run time (NVRTC).
add_executable(example_kernel_matmul ${CMAKE_CURRENT_LIST_DIR}/kernels/matmul/host.cpp)
target_compile_definitions(example_kernel_matmul
                           PRIVATE KTUNE_MATMUL_SPEC="${CMAKE_CURRENT_LIST_DIR}/kernels/matmul/matmul.json")
target_link_libraries(example_kernel_matmul PRIVATE ktune::ktune ktune_build_flags CUDA::cudart)
