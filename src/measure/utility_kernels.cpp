#include "measure/utility_kernels.hpp"

#include "ktune/core/rng.hpp"

namespace ktune::measure::detail {

// Inputs come from a counter-based splitmix64 (ktune/core/rng.hpp, splitmix64_at), so a seed
// reproduces them exactly and a new seed per check gives fresh data at memory speed, no host
// round trip.
const char* const utility_source = KTUNE_SPLITMIX64_CUDA R"(
__device__ __forceinline__ float uniform(unsigned long long seed, long long i) {
    const unsigned long long z = ktune_splitmix64_at(seed, (unsigned long long)i);
    return (float)(z >> 40) * (1.0f / 16777216.0f); // [0, 1)
}
__device__ __forceinline__ unsigned short f2bf(float v) {
    unsigned u = __float_as_uint(v);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (unsigned short)(u >> 16);
}
__device__ __forceinline__ float bf2f(unsigned short v) { return __uint_as_float(((unsigned)v) << 16); }

extern "C" __global__ void ktune_fill_fp32(float* p, long long n, unsigned long long seed,
                                           float lo, float hi) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        p[i] = lo + (hi - lo) * uniform(seed, i);
}
extern "C" __global__ void ktune_fill_bf16(unsigned short* p, long long n,
                                           unsigned long long seed, float lo, float hi) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        p[i] = f2bf(lo + (hi - lo) * uniform(seed, i));
}
// Counts elements with !(|out - ref| <= atol + rtol |ref|) (NaN fails) and the largest finite
// error (float bits are ordered like the values for non-negative floats). Each thread keeps its
// own count and maximum and a warp publishes them with one atomic each: one same-address atomic
// per element (64 M of them at 8192^2) serialised in L2 and made the check ~1.5 ms longer.
__device__ __forceinline__ void judge(float o, float r, double rtol, double atol,
                                      unsigned long long& bad, unsigned& maxerr) {
    const double e = fabs((double)o - (double)r);
    if (!(e <= atol + rtol * fabs((double)r))) ++bad;
    if (e == e && e < 3.0e38) {
        const unsigned bits = __float_as_uint((float)e);
        maxerr = bits > maxerr ? bits : maxerr;
    }
}
// Every lane of the warp must call it (the grid-stride loops end before it).
__device__ __forceinline__ void publish(unsigned long long bad, unsigned maxerr,
                                        unsigned long long* bad_out, unsigned* max_out) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        bad += __shfl_xor_sync(0xffffffffu, bad, o);
        const unsigned other = __shfl_xor_sync(0xffffffffu, maxerr, o);
        maxerr = other > maxerr ? other : maxerr;
    }
    if ((threadIdx.x & 31) == 0) {
        if (bad) atomicAdd(bad_out, bad);
        if (maxerr) atomicMax(max_out, maxerr);
    }
}
extern "C" __global__ void ktune_compare_fp32(const float* out, const float* ref, long long n,
                                              double rtol, double atol, unsigned long long* bad,
                                              unsigned* maxerr) {
    unsigned long long b = 0;
    unsigned m = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        judge(out[i], ref[i], rtol, atol, b, m);
    publish(b, m, bad, maxerr);
}
extern "C" __global__ void ktune_compare_bf16(const unsigned short* out, const float* ref,
                                              long long n, double rtol, double atol,
                                              unsigned long long* bad, unsigned* maxerr) {
    unsigned long long b = 0;
    unsigned m = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        judge(bf2f(out[i]), ref[i], rtol, atol, b, m);
    publish(b, m, bad, maxerr);
}
)";

} // namespace ktune::measure::detail
