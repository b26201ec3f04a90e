// Transpose, form micro: assembled after the prelude and the config constants (and, for
// ragged_bulk, bulk_copy.cuh).
// form = micro (docs/perf/kernels.md#long-row-forms): each thread transposes VEC x VEC micro-tiles
// in registers (16-byte rows in, 16-byte columns out) and the shared tile holds them already
// transposed, in 16-byte units XOR-swizzled by micro-column: every shared access is 16 bytes wide
// and conflict-free (a quarter-warp's 8 lanes hit 8 distinct 16-byte bank groups), so a tile costs
// the minimum of shared-memory wavefronts, its bytes / 128 each way (packed 64-tiles: 1.5x that).
typedef vec_t<VEC> V;
constexpr int U = TILE / VEC; // micro-tiles per tile edge; 16-byte units per shared row
#ifndef RAGGED_BULK
#define RAGGED_BULK 0
#endif
// Bulk copies need sm_90: elsewhere the same config loads the pairs (a default stays valid on
// every GPU).
#if defined(RAGGED) && RAGGED_BULK && __CUDA_ARCH__ >= 900
#define KTUNE_BULK_ROWS 1
#else
#define KTUNE_BULK_ROWS 0
#endif
#ifndef SHIFT_RUNTIME
#define SHIFT_RUNTIME 0
#endif
#ifdef RAGGED
// Where micro-row i starts in its aligned vector. Tiles and micro-tiles start on multiples of
// VEC (rows and columns), so the offset is (i * cols) % VEC: with cols % VEC given by the host
// (COLS_MOD_VEC) a constant once the loop over i unrolls, and shift_pair's selects fold away
// (a PRMT per word is left, none where the shift is whole words). Hand-set shift_runtime: the
// offset from the address, as before (docs/perf/kernels.md#transpose-ragged-bulk).
__device__ __forceinline__ int row_shift(int i, long long ir, int cols, long long c0) {
#if SHIFT_RUNTIME
    return (int)(((ir + i) * cols + c0) % VEC);
#else
    return (i * COLS_MOD_VEC) % VEC;
#endif
}
#endif
#if KTUNE_BULK_ROWS
extern __shared__ __align__(128) unsigned char ktune_dsmem[]; // the rows' spans, TILE x (U + 1)
#endif
__device__ __forceinline__ unsigned word(const uint4& v, int k) {
    return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w; // k is a compile-time constant
}
// Column j of the micro-tile a (row i = a[i]) as one 16-byte vector: words picked (fp32) or
// bf16 halves paired by one PRMT per output word.
__device__ __forceinline__ uint4 micro_col(const uint4 (&a)[VEC], int j) {
    unsigned w[4];
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        if (sizeof(T) == 4)
            w[q] = word(a[q], j);
        else
            w[q] = __byte_perm(word(a[2 * q], j >> 1), word(a[2 * q + 1], j >> 1),
                               (j & 1) ? 0x7632 : 0x5410);
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
}

extern "C" __global__ void __launch_bounds__(U* BLOCK_ROWS)
    ktune_op_kernel(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
    // tile[c][u ^ (c / VEC % 8)]: input column c (an output row), input rows u*VEC .. +VEC-1.
    __shared__ uint4 tile[TILE][U];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const long long r0 = (long long)blockIdx.y * TILE, c0 = (long long)blockIdx.x * TILE;
    // Micro-tile (mr, tx): input rows mr*VEC.., columns tx*VEC..; vec divides rows (and cols,
    // unless RAGGED), so a micro-tile is inside the matrix or wholly outside (RAGGED: the last
    // of a row may end past it; those columns are never stored).
    const long long ic = c0 + tx * VEC;
#if KTUNE_BULK_ROWS
    // Hand-set ragged_bulk (docs/perf/kernels.md#transpose-ragged-bulk): each tile row's aligned
    // span (U + 1 vectors from the one holding its first element) lands in shared memory by one
    // bulk copy, issued by one thread a row; the micro-rows are shifted out of it. No thread
    // loads global memory: two L1 requests a micro-row (the pair) become none.
    uint4* const stage = reinterpret_cast<uint4*>(ktune_dsmem);
    __shared__ __align__(8) unsigned long long bar[1];
    const int lin = ty * U + tx, nthreads = U * BLOCK_ROWS;
    const long long tensor_vectors = (long long)rows * cols / VEC; // VEC divides rows
    const auto span_at = [&](int r, long long& first_vec) {
        const long long first = (r0 + r) * cols + c0;
        first_vec = first / VEC;
        const long long left = tensor_vectors - first_vec;
        return (int)(left < U + 1 ? left : U + 1);
    };
    mbar_setup(bar, 1);
    if (lin == 0) {
        unsigned bytes = 0;
        for (int r = 0; r < TILE && r0 + r < rows; ++r) {
            long long fv;
            bytes += span_at(r, fv) * 16u;
        }
        mbar_expect(bar, bytes);
    }
    __syncthreads(); // the expectation is set before any copy completes
    for (int r = lin; r < TILE && r0 + r < rows; r += nthreads) {
        long long fv;
        const int n = span_at(r, fv);
        bulk_load(stage + r * (U + 1), reinterpret_cast<const uint4*>(in) + fv, n * 16u, bar);
    }
    mbar_wait(bar, 0);
#endif
#pragma unroll
    for (int mr = ty; mr < U; mr += BLOCK_ROWS) {
        const long long ir = r0 + mr * VEC;
        if (ir < rows && ic < cols) {
            uint4 a[VEC];
#pragma unroll
            for (int i = 0; i < VEC; ++i) {
#if KTUNE_BULK_ROWS
                const int ph = row_shift(i, ir, cols, c0);
                const uint4* row = stage + (mr * VEC + i) * (U + 1) + tx;
                const V lo = *reinterpret_cast<const V*>(row);
                const V hi = *reinterpret_cast<const V*>(row + 1);
                const V m = shift_pair<VEC>(lo, hi, ph);
                a[i] = *reinterpret_cast<const uint4*>(&m);
#elif defined(RAGGED)
                // Odd input rows (docs/perf/kernels.md#rows-of-odd-length): the two aligned
                // vectors around the micro-row, shifted (shift_pair); the second only inside the
                // tensor, which ends on a vector (VEC divides rows).
                const long long e = (ir + i) * cols + ic;
                const int ph = row_shift(i, ir, cols, c0);
                const V* src = reinterpret_cast<const V*>(in + e - ph);
                const V lo = src[0];
                const V hi = e - ph + VEC < (long long)rows * cols ? src[1] : lo;
                const V m = shift_pair<VEC>(lo, hi, ph);
                a[i] = *reinterpret_cast<const uint4*>(&m);
#else
                a[i] = *reinterpret_cast<const uint4*>(in + (ir + i) * cols + ic);
#endif
            }
#pragma unroll
            for (int j = 0; j < VEC; ++j)
                tile[tx * VEC + j][mr ^ (tx & 7)] = micro_col(a, j);
        }
    }
    __syncthreads();
    // Output row c0 + c, its 16-byte unit tx: input rows r0 + tx*VEC ..
    const long long orow = r0 + tx * VEC;
#pragma unroll
    for (int c = ty; c < TILE; c += BLOCK_ROWS) {
        if (c0 + c < cols && orow < rows)
            *reinterpret_cast<uint4*>(out + (c0 + c) * rows + orow) = tile[c][tx ^ ((c / VEC) & 7)];
    }
    KTUNE_EPILOGUE(out, (long long)rows * cols)
}
