// The prelude of scale_bias_ (its own: it does not depend on the row ops' shared device code).
// scale_bias.cpp puts "#define KTUNE_BF16 0|1" before it.
#if KTUNE_BF16
// bf16 as raw bits, round-to-nearest-even: no cuda_bf16.h, so NVRTC parses no header.
typedef unsigned short T;
__device__ __forceinline__ float to_f(T v) {
    return __uint_as_float(((unsigned)v) << 16);
}
// One cvt instead of ~6 integer operations (docs/perf/kernels.md#scale-bias-packed).
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
// x * g + b element by element. bf16 pairs through one fma.rn.bf16x2: the exact product and sum
// rounded once (the fp32 fma then a cvt rounds twice), one instruction for two elements where
// the unpacking, the fp32 fma and the cvt took about eight; odd rows are issue-bound on the
// operands' shift, so these count (docs/perf/kernels.md#scale-bias-packed).
template <int N>
__device__ __forceinline__ vec_t<N> affine(const vec_t<N>& x, const vec_t<N>& g,
                                           const vec_t<N>& b) {
    vec_t<N> o;
#if KTUNE_BF16
    if constexpr (N % 2 == 0) {
        // vec_t<N> is aligned to 2N bytes: its pairs are aligned words.
        const unsigned* xw = reinterpret_cast<const unsigned*>(x.v);
        const unsigned* gw = reinterpret_cast<const unsigned*>(g.v);
        const unsigned* bw = reinterpret_cast<const unsigned*>(b.v);
        unsigned* ow = reinterpret_cast<unsigned*>(o.v);
#pragma unroll
        for (int k = 0; k < N / 2; ++k)
            asm("fma.rn.bf16x2 %0, %1, %2, %3;" : "=r"(ow[k]) : "r"(xw[k]), "r"(gw[k]), "r"(bw[k]));
        return o;
    }
#endif
#pragma unroll
    for (int k = 0; k < N; ++k)
        o.v[k] = from_f(fmaf(to_f(x.v[k]), to_f(g.v[k]), to_f(b.v[k])));
    return o;
}
