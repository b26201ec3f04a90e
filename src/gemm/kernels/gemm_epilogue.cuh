// The epilogue of ktune's GEMM kernels (docs/perf/gemm.md#hopper-types), compiled by NVRTC in
// front of the Hopper template (sm90_gemm.cuh) and the mma.sync fallback (mma_gemm.cuh):
// D = act(alpha acc + bias) packed to D's type. Both kernels store OUT = D's transpose (N x M,
// row-major), so the bias (one value a row of D) is indexed by OUT's column, and a thread's
// accumulator pairs are two neighbouring columns of one row (the template's swapped form:
// two neighbouring rows of OUT, one bias value, docs/perf/gemm.md#swap-ab).
// Defines (set by the host): IN_F16 (1: fp16 inputs and D; else D is bf16), EPILOGUE (0 none,
// 1 bias, 2 relu(+ bias), 3 gelu(+ bias), tanh form as cuBLASLt's).
#ifndef IN_F16
#define IN_F16 0
#endif
#ifndef EPILOGUE
#define EPILOGUE 0
#endif

__device__ __forceinline__ float epi_act(float x) {
#if EPILOGUE == 2
    return x > 0.0f ? x : 0.0f;
#elif EPILOGUE == 3
    // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), cuBLASLt's GELU form.
    float t;
    const float u = 0.7978845608f * (x + 0.044715f * x * x * x);
    asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(u));
    return 0.5f * x * (1.0f + t);
#else
    return x;
#endif
}
__device__ __forceinline__ float out_to_float(unsigned short h) {
#if IN_F16
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
#else
    return __uint_as_float((unsigned)h << 16);
#endif
}
// The bias of columns col (even) and col + 1 as OUT's bits, 0 past C: one 4-byte load where
// both are inside and the pair is aligned (a thread's 8-column blocks share it between their two
// rows).
__device__ __forceinline__ unsigned bias_word(const unsigned short* __restrict__ bias, int col,
                                              int C) {
#if EPILOGUE > 0
    if (col + 1 < C && (reinterpret_cast<unsigned long long>(bias + col) & 3) == 0)
        return __ldg(reinterpret_cast<const unsigned*>(bias + col));
    return (col < C ? (unsigned)__ldg(bias + col) : 0u) |
           (col + 1 < C ? (unsigned)__ldg(bias + col + 1) << 16 : 0u);
#else
    return 0u;
#endif
}
// Two elements of OUT's type in a word, as floats (the low half first): a bias pair, or two of
// the GEMV's inputs.
__device__ __forceinline__ float2 out_pair(unsigned w) {
    return make_float2(out_to_float((unsigned short)(w & 0xffffu)),
                       out_to_float((unsigned short)(w >> 16)));
}
// Two neighbouring elements of OUT's row through the epilogue with their bias b (out_pair),
// packed to OUT's type (the first in the low half).
__device__ __forceinline__ unsigned epi_pack(float x0, float x1, float alpha, float2 b) {
    x0 *= alpha;
    x1 *= alpha;
#if EPILOGUE > 0
    x0 = epi_act(x0 + b.x);
    x1 = epi_act(x1 + b.y);
#endif
    unsigned packed;
#if IN_F16
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(packed) : "f"(x1), "f"(x0));
#else
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(packed) : "f"(x1), "f"(x0));
#endif
    return packed;
}
