// scale_bias_ candidate kernel, after scale_bias_prelude.cuh and the config constants.
// Each thread owns UNROLL vectors of VEC elements, BLOCK apart, so a warp's loads stay
// coalesced; the UNROLL loads are issued before any store (several 16-byte loads in flight).
#ifndef KTUNE_EPILOGUE
#define KTUNE_EPILOGUE(out, n)
#endif
typedef vec_t<VEC> V;
// Rows that VEC does not divide (RAGGED, docs/perf/kernels.md#rows-of-odd-length): the tensor is
// one flat run of aligned vectors (a vector may cross into the next row), the last n % VEC
// elements one by one; gamma and beta through column_vec.
constexpr long long N_ELEMS = (long long)ROWS * C;
constexpr long long NV = N_ELEMS / VEC;

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
#ifdef RAGGED
    // One 64-bit modulo per thread: the next vector's column is BLOCK * VEC further, mod C.
    constexpr int STEP = (int)(((long long)BLOCK * VEC) % C);
    int col = (int)((base * VEC) % C);
#endif
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
        const long long i = base + (long long)u * BLOCK;
#ifdef RAGGED
        const int c0 = col;
        col += STEP;
        if (col >= C) col -= C;
        if (i >= NV) continue;
        const V gv = column_vec<VEC>(g, c0, C);
        const V bv = column_vec<VEC>(b, c0, C);
#else
        if (i >= NV) continue;
        const int c0 = (int)((i * VEC) % C);
        const V gv = *reinterpret_cast<const V*>(g + c0);
        const V bv = *reinterpret_cast<const V*>(b + c0);
#endif
        xv[i] = affine<VEC>(a[u], gv, bv);
    }
#ifdef RAGGED
    if (blockIdx.x == 0 && threadIdx.x < N_ELEMS - NV * VEC) {
        const long long e = NV * VEC + threadIdx.x;
        const int c = (int)(e % C);
        x[e] = from_f(fmaf(to_f(x[e]), to_f(g[c]), to_f(b[c])));
    }
#endif
    KTUNE_EPILOGUE(x, N_ELEMS)
}
