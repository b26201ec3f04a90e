// y[i] = 2 * x[i] over n elements, each thread VEC elements per block step: the launcher tests'
// kernel (small, so its NVRTC compile is quick).
#ifndef VEC
#define VEC 1
#endif
template <int BLOCK>
__global__ void scale(const float* __restrict__ x, float* __restrict__ y, int n, long long stride) {
    extern __shared__ float staged[];
    const long long base = (long long)blockIdx.x * BLOCK * VEC;
    for (int v = 0; v < VEC; ++v) {
        const long long i = base + v * BLOCK + threadIdx.x;
        staged[threadIdx.x] = i < n ? x[i * stride] : 0.0f;
        if (i < n) y[i * stride] = 2.0f * staged[threadIdx.x];
    }
}
