// Transpose, form micro: assembled after the prelude and the config constants.
// form = micro (docs/perf/kernels.md#long-row-forms): each thread transposes VEC x VEC micro-tiles
// in registers (16-byte rows in, 16-byte columns out) and the shared tile holds them already
// transposed, in 16-byte units XOR-swizzled by micro-column: every shared access is 16 bytes wide
// and conflict-free (a quarter-warp's 8 lanes hit 8 distinct 16-byte bank groups), so a tile costs
// the minimum of shared-memory wavefronts, its bytes / 128 each way (packed 64-tiles: 1.5x that).
typedef vec_t<VEC> V;
constexpr int U = TILE / VEC; // micro-tiles per tile edge; 16-byte units per shared row
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
#ifdef RAGGED
    // Odd input rows (docs/perf/kernels.md#rows-of-odd-length): a micro-row is the two aligned
    // vectors around it, shifted (shift_pair). The second is the next lane's first (same input
    // row, the next VEC columns), passed by a shuffle within the U lanes of a thread row: one
    // load a micro-row, not two, which left odd rows latency-bound at 62 % of DRAM throughput
    // with twice the L1 requests (docs/perf/kernels.md#transpose-odd-rows-ncu). The last lane of
    // a thread row, and a lane whose neighbour is past the row's end, load their own (only
    // inside the tensor, which ends on a vector: VEC divides rows). Every lane runs the loads
    // and shuffles (lanes outside the matrix read element 0), so the shuffles see whole warps:
    // the loop's trip count is the same for every ty (BLOCK_ROWS divides U for form micro).
    constexpr int NT = U * BLOCK_ROWS;
    constexpr unsigned lanes = NT >= 32 ? 0xffffffffu : (1u << (NT % 32)) - 1u;
    const long long total = (long long)rows * cols;
#pragma unroll
    for (int mr = ty; mr < U; mr += BLOCK_ROWS) {
        const long long ir = r0 + mr * VEC;
        const bool inside = ir < rows && ic < cols;
        const bool own_hi = tx == U - 1 || ic + VEC >= cols;
        uint4 a[VEC];
#pragma unroll
        for (int i = 0; i < VEC; ++i) {
            const long long e = inside ? (ir + i) * cols + ic : 0;
            const int ph = (int)(e % VEC);
            const V* src = reinterpret_cast<const V*>(in + e - ph);
            const V lo = src[0];
            V hi;
#pragma unroll
            for (int w = 0; w < 4; ++w)
                reinterpret_cast<unsigned*>(&hi)[w] =
                    __shfl_down_sync(lanes, reinterpret_cast<const unsigned*>(&lo)[w], 1, U);
            if (own_hi && inside) hi = e - ph + VEC < total ? src[1] : lo;
            const V m = shift_pair<VEC>(lo, hi, ph);
            a[i] = *reinterpret_cast<const uint4*>(&m);
        }
        if (inside) {
#pragma unroll
            for (int j = 0; j < VEC; ++j)
                tile[tx * VEC + j][mr ^ (tx & 7)] = micro_col(a, j);
        }
    }
#else
#pragma unroll
    for (int mr = ty; mr < U; mr += BLOCK_ROWS) {
        const long long ir = r0 + mr * VEC;
        if (ir < rows && ic < cols) {
            uint4 a[VEC];
#pragma unroll
            for (int i = 0; i < VEC; ++i)
                a[i] = *reinterpret_cast<const uint4*>(in + (ir + i) * cols + ic);
#pragma unroll
            for (int j = 0; j < VEC; ++j)
                tile[tx * VEC + j][mr ^ (tx & 7)] = micro_col(a, j);
        }
    }
#endif
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
