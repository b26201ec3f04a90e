// ktune's GEMV for decode GEMMs of a few rows (docs/perf/gemm.md#gemv-decode), compiled by NVRTC
// after gemm_epilogue.cuh: D[m + n M] = act(alpha sum_k A[k + m K] B[k + n K] + bias[m]) for
// M <= 8, bf16 or fp16 in and out (fp8 e4m3 in, bf16 out), fp32 sums, K a whole number of
// 16-byte chunks, A and B 16-byte aligned. At M = 1..4
// the tensor cores' tiles would pad the batch to 8 or more rows; here the weights B stream
// through 16-byte streaming loads as a read-only kernel's would, the dot products on the way,
// A through L1. Defines (set by the host): MROWS (M), FORM (1: a warp a row of B, rows
// grid-strided over the warps; 2: a block a row, its warps splitting K, then a shared-memory
// sum), UNROLL (16-byte loads of B in flight a thread), IN_FP8 (1: fp8 e4m3 A and B, sm_89 and
// later) and gemm_epilogue.cuh's IN_F16 and EPILOGUE. 256 threads a block.
#define GEMV_THREADS 256
#ifndef IN_FP8
#define IN_FP8 0
#endif

#if IN_FP8
// Four e4m3 values of a word as fp16 pairs (one cvt for two), then as floats: the same order for
// A and B, so element k of one meets element k of the other.
__device__ __forceinline__ float gemv_dot_word(unsigned w, unsigned x, float acc) {
    unsigned w01, w23, x01, x23;
    asm("{\n.reg .b16 l, h;\nmov.b32 {l, h}, %2;\ncvt.rn.f16x2.e4m3x2 %0, l;\n"
        "cvt.rn.f16x2.e4m3x2 %1, h;\n}"
        : "=r"(w01), "=r"(w23)
        : "r"(w));
    asm("{\n.reg .b16 l, h;\nmov.b32 {l, h}, %2;\ncvt.rn.f16x2.e4m3x2 %0, l;\n"
        "cvt.rn.f16x2.e4m3x2 %1, h;\n}"
        : "=r"(x01), "=r"(x23)
        : "r"(x));
    float f[8];
    const unsigned halves[4] = {w01, w23, x01, x23};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        asm("cvt.f32.f16 %0, %1;" : "=f"(f[2 * i]) : "h"((unsigned short)(halves[i] & 0xffffu)));
        asm("cvt.f32.f16 %0, %1;" : "=f"(f[2 * i + 1]) : "h"((unsigned short)(halves[i] >> 16)));
    }
    acc = fmaf(f[0], f[4], acc);
    acc = fmaf(f[1], f[5], acc);
    acc = fmaf(f[2], f[6], acc);
    return fmaf(f[3], f[7], acc);
}
// A 16-byte chunk: 16 fp8 elements of B against A's.
__device__ __forceinline__ float gemv_dot8(const uint4& w, const uint4& x, float acc) {
    acc = gemv_dot_word(w.x, x.x, acc);
    acc = gemv_dot_word(w.y, x.y, acc);
    acc = gemv_dot_word(w.z, x.z, acc);
    return gemv_dot_word(w.w, x.w, acc);
}
#else
// A 16-byte chunk: 8 elements of B against A's (gemm_epilogue.cuh's out_pair: A and B are of
// OUT's type here).
__device__ __forceinline__ float gemv_dot8(const uint4& w, const uint4& x, float acc) {
    const unsigned ws[4] = {w.x, w.y, w.z, w.w}, xs[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const float2 p = out_pair(ws[i]), q = out_pair(xs[i]);
        acc = fmaf(p.x, q.x, acc);
        acc = fmaf(p.y, q.y, acc);
    }
    return acc;
}
#endif
// Chunks first, first + stride, ... of one row of B (k8 16-byte chunks) against A's rows, UNROLL
// loads of B issued before any is used.
__device__ __forceinline__ void gemv_row_part(float (&acc)[MROWS], const uint4* __restrict__ b,
                                              const uint4* __restrict__ a, int k8, int first,
                                              int stride) {
    for (int c = first; c < k8; c += stride * UNROLL) {
        uint4 w[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
            const int i = c + u * stride;
            w[u] = i < k8 ? __ldcs(b + i) : make_uint4(0u, 0u, 0u, 0u);
        }
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
            const int i = c + u * stride;
            if (i < k8)
#pragma unroll
                for (int m = 0; m < MROWS; ++m)
                    acc[m] = gemv_dot8(w[u], __ldg(a + (long long)m * k8 + i), acc[m]);
        }
    }
}
// Each row's sum over the warp's lanes (a butterfly: every lane ends with every sum).
__device__ __forceinline__ void gemv_warp_sums(float (&acc)[MROWS]) {
#pragma unroll
    for (int m = 0; m < MROWS; ++m)
#pragma unroll
        for (int o = 16; o > 0; o >>= 1)
            acc[m] += __shfl_xor_sync(0xffffffffu, acc[m], o);
}
__device__ __forceinline__ void gemv_store(unsigned short* __restrict__ d,
                                           const unsigned short* __restrict__ bias, int m,
                                           long long n, float v, float alpha) {
    v *= alpha;
#if EPILOGUE > 0
    v = epi_act(v + out_to_float(__ldg(bias + m)));
#endif
    unsigned short h;
#if IN_F16
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
#else
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(v));
#endif
    d[m + n * MROWS] = h;
}

extern "C" __global__ void __launch_bounds__(GEMV_THREADS)
    ktune_gemv(const unsigned short* __restrict__ A, const unsigned short* __restrict__ B,
               unsigned short* __restrict__ D, int N, int K, float alpha,
               const unsigned short* __restrict__ bias) {
    const int k8 = K / (IN_FP8 ? 16 : 8), lane = threadIdx.x & 31; // 16-byte chunks a row
    const uint4* a = reinterpret_cast<const uint4*>(A);
    const uint4* b = reinterpret_cast<const uint4*>(B);
#if FORM == 1
    const int warps = (int)((gridDim.x * GEMV_THREADS) >> 5);
    for (int n = (int)((blockIdx.x * GEMV_THREADS + threadIdx.x) >> 5); n < N; n += warps) {
        float acc[MROWS];
#pragma unroll
        for (int m = 0; m < MROWS; ++m)
            acc[m] = 0.0f;
        gemv_row_part(acc, b + (long long)n * k8, a, k8, lane, 32);
        gemv_warp_sums(acc);
        if (lane < MROWS) {
            float v = acc[0];
#pragma unroll
            for (int m = 1; m < MROWS; ++m)
                v = lane == m ? acc[m] : v;
            gemv_store(D, bias, lane, n, v, alpha);
        }
    }
#else
    __shared__ float part[GEMV_THREADS / 32][MROWS];
    const int warp = threadIdx.x >> 5;
    for (int n = blockIdx.x; n < N; n += gridDim.x) {
        float acc[MROWS];
#pragma unroll
        for (int m = 0; m < MROWS; ++m)
            acc[m] = 0.0f;
        gemv_row_part(acc, b + (long long)n * k8, a, k8, threadIdx.x, GEMV_THREADS);
        gemv_warp_sums(acc);
        if (lane == 0)
#pragma unroll
            for (int m = 0; m < MROWS; ++m)
                part[warp][m] = acc[m];
        __syncthreads();
        if (threadIdx.x < MROWS) {
            float v = 0.0f;
#pragma unroll
            for (int w = 0; w < GEMV_THREADS / 32; ++w)
                v += part[w][threadIdx.x];
            gemv_store(D, bias, (int)threadIdx.x, n, v, alpha);
        }
        __syncthreads(); // part is written again for the next row
    }
#endif
}
