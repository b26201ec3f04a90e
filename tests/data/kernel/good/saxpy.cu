// y = a * x + y with ITEMS elements per thread; the unit tests' small spec (saxpy.json).
#include "saxpy_math.cuh"
#ifndef ITEMS
#define ITEMS 1
#endif
template <int BLOCK>
__global__ void saxpy(const float* x, float* y, int n, int a) {
    const int base = blockIdx.x * BLOCK * ITEMS + threadIdx.x;
    for (int k = 0; k < ITEMS; ++k) {
        const int i = base + k * BLOCK;
        if (i < n) y[i] = axpy(float(a), x[i], y[i]);
    }
}
