// scale_bias_ candidate kernel, after scale_bias_prelude.cuh and the config constants.
// Each thread owns UNROLL vectors of VEC elements, BLOCK apart, so a warp's loads stay
// coalesced; the UNROLL loads are issued before any store (several 16-byte loads in flight).
#ifndef KTUNE_EPILOGUE
#define KTUNE_EPILOGUE(out, n)
#endif
template <int N>
struct __align__(sizeof(T) * N) vec_t {
    T v[N];
};
typedef vec_t<VEC> V;
constexpr long long NV = (long long)ROWS * C / VEC;

extern "C" __global__ void __launch_bounds__(BLOCK)
    ktune_op_kernel(T* __restrict__ x, const T* __restrict__ g, const T* __restrict__ b, int rows,
                    int cols) {
    V* xv = reinterpret_cast<V*>(x);
    const long long base = (long long)blockIdx.x * BLOCK * UNROLL + threadIdx.x;
    V a[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
        const long long i = base + (long long)u * BLOCK;
        if (i < NV) a[u] = xv[i];
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
        const long long i = base + (long long)u * BLOCK;
        if (i >= NV) continue;
        const int c0 = (int)((i * VEC) % C);
        const V gv = *reinterpret_cast<const V*>(g + c0);
        const V bv = *reinterpret_cast<const V*>(b + c0);
#pragma unroll
        for (int k = 0; k < VEC; ++k)
            a[u].v[k] = from_f(fmaf(to_f(a[u].v[k]), to_f(gv.v[k]), to_f(bv.v[k])));
        xv[i] = a[u];
    }
    KTUNE_EPILOGUE(x, NV * VEC)
}
