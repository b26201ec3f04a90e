// Sum of n floats into out[0] (which starts at zero), the kernel of reduction.json. A
// grid-stride loop with VEC-wide loads and ITEMS loads in flight per thread, a warp-shuffle
// tree, one shared word per warp, and one atomicAdd per block.
#ifndef VEC
#define VEC 1
#endif
#ifndef ITEMS
#define ITEMS 1
#endif

template <int BLOCK>
__global__ void reduce_sum(const float* __restrict__ in, float* __restrict__ out, long long n) {
    float sum = 0.0f;
    const long long stride = (long long)gridDim.x * BLOCK * ITEMS * VEC;
    for (long long base = ((long long)blockIdx.x * BLOCK * ITEMS + threadIdx.x) * VEC; base < n;
         base += stride) {
#pragma unroll
        for (int it = 0; it < ITEMS; ++it) {
            const long long i = base + (long long)it * BLOCK * VEC;
            if (VEC == 4 && i + 3 < n) {
                const float4 v = *reinterpret_cast<const float4*>(in + i);
                sum += (v.x + v.y) + (v.z + v.w);
            } else if (VEC == 2 && i + 1 < n) {
                const float2 v = *reinterpret_cast<const float2*>(in + i);
                sum += v.x + v.y;
            } else {
                for (int k = 0; k < VEC; ++k)
                    if (i + k < n) sum += in[i + k];
            }
        }
    }
    for (int off = 16; off > 0; off /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, off);
    __shared__ float warp_sums[BLOCK / 32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        sum = lane < BLOCK / 32 ? warp_sums[lane] : 0.0f;
        for (int off = 16; off > 0; off /= 2)
            sum += __shfl_down_sync(0xffffffffu, sum, off);
        if (lane == 0) atomicAdd(out, sum);
    }
}
