// Decode GEMM D = X * W^T (a transformer projection at small batch: X is M x K activations,
// W is N x K weights, both row-major bf16; D is M x N bf16, fp32 accumulation), the kernel of
// decode_gemm.json. At M <= 8 it is bound by reading W once: each warp streams ROWS rows of W
// in 16-byte vectors (a warp reads 512 contiguous bytes per load), UNROLL loads in flight per
// row, and multiplies them by the M rows of X (small: they stay in L1/L2); one warp-shuffle sum
// per output. bf16 as raw 16-bit words (no cuda_bf16.h: NVRTC parses no header).
#ifndef MM
#define MM 1 // rows of X (the problem's M), fixed at compile time so the accumulators unroll
#endif
#ifndef UNROLL
#define UNROLL 1
#endif

__device__ __forceinline__ float bf16_lo(unsigned w) {
    return __uint_as_float(w << 16);
}
__device__ __forceinline__ float bf16_hi(unsigned w) {
    return __uint_as_float(w & 0xffff0000u);
}
__device__ __forceinline__ unsigned short to_bf16(float f) {
    unsigned short h;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
// acc += the dot product of 8 bf16 pairs (x, w).
__device__ __forceinline__ float dot8(const uint4& x, const uint4& w, float acc) {
    acc = fmaf(bf16_lo(x.x), bf16_lo(w.x), acc);
    acc = fmaf(bf16_hi(x.x), bf16_hi(w.x), acc);
    acc = fmaf(bf16_lo(x.y), bf16_lo(w.y), acc);
    acc = fmaf(bf16_hi(x.y), bf16_hi(w.y), acc);
    acc = fmaf(bf16_lo(x.z), bf16_lo(w.z), acc);
    acc = fmaf(bf16_hi(x.z), bf16_hi(w.z), acc);
    acc = fmaf(bf16_lo(x.w), bf16_lo(w.w), acc);
    return fmaf(bf16_hi(x.w), bf16_hi(w.w), acc);
}

template <int WARPS, int ROWS>
__global__ void __launch_bounds__(WARPS * 32)
    decode_gemm(const uint4* __restrict__ X, const uint4* __restrict__ W,
                unsigned short* __restrict__ D, int M, int N, int K) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int n0 = (blockIdx.x * WARPS + warp) * ROWS;
    if (n0 >= N) return;
    const int kv_n = K / 8; // 16-byte vectors per row (the spec asks K % 8 == 0)
    float acc[MM][ROWS];
#pragma unroll
    for (int m = 0; m < MM; ++m)
#pragma unroll
        for (int r = 0; r < ROWS; ++r)
            acc[m][r] = 0.0f;
    for (int kv0 = lane; kv0 < kv_n; kv0 += 32 * UNROLL) {
        // Every load of this round issued before any is used.
        uint4 w[UNROLL][ROWS];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
#pragma unroll
            for (int r = 0; r < ROWS; ++r) {
                const int kv = kv0 + u * 32;
                w[u][r] = kv < kv_n && n0 + r < N ? W[(long long)(n0 + r) * kv_n + kv]
                                                  : make_uint4(0, 0, 0, 0);
            }
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
            const int kv = kv0 + u * 32;
            if (kv >= kv_n) break;
#pragma unroll
            for (int m = 0; m < MM; ++m) {
                const uint4 x = X[(long long)m * kv_n + kv];
#pragma unroll
                for (int r = 0; r < ROWS; ++r)
                    acc[m][r] = dot8(x, w[u][r], acc[m][r]);
            }
        }
    }
#pragma unroll
    for (int m = 0; m < MM; ++m)
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            float v = acc[m][r];
            for (int off = 16; off > 0; off /= 2)
                v += __shfl_xor_sync(0xffffffffu, v, off);
            if (lane == 0 && n0 + r < N) D[(long long)m * N + n0 + r] = to_bf16(v);
        }
}

// The reference: one thread per output, fp32 accumulation in K order (slow, obviously right).
__global__ void decode_gemm_reference(const uint4* __restrict__ X, const uint4* __restrict__ W,
                                      unsigned short* __restrict__ D, int M, int N, int K) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (long long)M * N) return;
    const int m = (int)(i / N), n = (int)(i % N);
    const unsigned short* x = reinterpret_cast<const unsigned short*>(X) + (long long)m * K;
    const unsigned short* w = reinterpret_cast<const unsigned short*>(W) + (long long)n * K;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc =
            fmaf(__uint_as_float((unsigned)x[k] << 16), __uint_as_float((unsigned)w[k] << 16), acc);
    D[i] = to_bf16(acc);
}
