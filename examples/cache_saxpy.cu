// The kernel launched by examples/cache_lookup.cpp, in its own CUDA library: the example's C++
// side needs C++20 (ktune's headers), which CMake cannot yet ask of every nvcc.
#include <cuda_runtime.h>

namespace {
// y = a*x + y with `items` elements per thread. Its tunables: block size and items.
__global__ void saxpy(int n, float a, const float* x, float* y, int items) {
    const int base = (blockIdx.x * blockDim.x * items) + threadIdx.x;
    for (int k = 0; k < items; ++k) {
        const int i = base + k * blockDim.x;
        if (i < n) y[i] = a * x[i] + y[i];
    }
}
} // namespace

cudaError_t launch_saxpy(unsigned grid, int block, int n, float a, const float* x, float* y,
                         int items) {
    saxpy<<<grid, block>>>(n, a, x, y, items);
    return cudaGetLastError();
}
