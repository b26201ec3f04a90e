// The kernel every spec of the bad-spec corpus names (tests/data/kernel/make_bad_specs.py).
#ifndef VEC
#define VEC 1
#endif
template <int BLOCK>
__global__ void scale(const float* x, float* y, int n) {
    const int i = (blockIdx.x * BLOCK + threadIdx.x) * VEC;
    for (int k = 0; k < VEC; ++k)
        if (i + k < n) y[i + k] = 2.0f * x[i + k];
}
extern "C" __global__ void scale_ref(const float* x, float* y, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}
