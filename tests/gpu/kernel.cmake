# the run-time launcher on the example kernels (kernel/launcher.hpp), checked against the host
ktune_add_gpu_test(gpu_kernel_launch ${CMAKE_CURRENT_LIST_DIR}/kernel/launcher_gpu_test.cpp)
