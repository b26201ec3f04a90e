// The prelude of every built-in op kernel but scale_bias_: T, to_f/from_f (bf16 as raw bits:
// no cuda_bf16.h, so NVRTC parses no header), vec_t<N>, ex2 and to_vec. source_common.cpp puts
// "#define KTUNE_BF16 0|1" before it.
#ifndef KTUNE_EPILOGUE
#define KTUNE_EPILOGUE(out, n)
#endif
#define KTUNE_INF __int_as_float(0x7f800000)
#if KTUNE_BF16
typedef unsigned short T; // bf16 bits
__device__ __forceinline__ float to_f(T v) {
    return __uint_as_float(((unsigned)v) << 16);
}
// One cvt (sm_90) instead of ~6 integer operations: bf16 row ops are issue-bound enough for
// it to matter (ncu, softmax bf16 4096x32768: SM throughput 76 %, DRAM 52 %).
__device__ __forceinline__ T from_f(float v) {
    unsigned short h;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(v));
    return h;
}
#else
typedef float T;
__device__ __forceinline__ float to_f(T v) {
    return v;
}
__device__ __forceinline__ T from_f(float v) {
    return v;
}
#endif
template <int N>
struct __align__(sizeof(T) * N) vec_t {
    T v[N];
};
// 2^x in one MUFU op; exp(x - m) = ex2(x * log2(e) - m * log2(e)) is then one FFMA and one MUFU
// (__expf(x - m): FADD, FMUL, MUFU).
__device__ __forceinline__ float ex2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
#define KTUNE_LOG2E 1.4426950408889634f
// A vector of N floats as one V of T. bf16: pairs through one cvt.rn.bf16x2.f32 (a single
// F2FP.BF16.F32.PACK_AB for two elements; from_f costs one per element).
#if KTUNE_BF16
__device__ __forceinline__ unsigned from_f2(float lo, float hi) {
    unsigned w;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo));
    return w;
}
template <int N>
__device__ __forceinline__ vec_t<N> to_vec(const float (&f)[N]) {
    vec_t<N> o;
    if constexpr (N % 2 == 0) {
        // vec_t<N> is aligned to 2N bytes: its pairs are aligned words.
        unsigned* w = reinterpret_cast<unsigned*>(o.v);
#pragma unroll
        for (int k = 0; k < N / 2; ++k)
            w[k] = from_f2(f[2 * k], f[2 * k + 1]);
    } else {
#pragma unroll
        for (int k = 0; k < N; ++k)
            o.v[k] = from_f(f[k]);
    }
    return o;
}
#else
template <int N>
__device__ __forceinline__ vec_t<N> to_vec(const float (&f)[N]) {
    vec_t<N> o;
#pragma unroll
    for (int k = 0; k < N; ++k)
        o.v[k] = f[k];
    return o;
}
#endif
