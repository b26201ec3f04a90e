// The prelude of scale_bias_ (its own: it does not depend on the row ops' shared device code).
// scale_bias.cpp puts "#define KTUNE_BF16 0|1" before it.
#if KTUNE_BF16
// bf16 as raw bits, round-to-nearest-even: no cuda_bf16.h, so NVRTC parses no header.
typedef unsigned short T;
__device__ __forceinline__ float to_f(T v) {
    return __uint_as_float(((unsigned)v) << 16);
}
__device__ __forceinline__ T from_f(float v) {
    unsigned u = __float_as_uint(v);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (T)0x7fc0u;
    u += 0x7fffu + ((u >> 16) & 1u);
    return (T)(u >> 16);
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
