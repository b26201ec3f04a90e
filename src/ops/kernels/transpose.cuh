// Transpose, form tile: assembled after the prelude and the config constants.
typedef vec_t<VEC> V;
constexpr int TX = TILE / VEC;

extern "C" __global__ void __launch_bounds__(TX* BLOCK_ROWS)
    ktune_op_kernel(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
    const int tx = threadIdx.x, ty = threadIdx.y;
    const long long r0 = (long long)blockIdx.y * TILE, c0 = (long long)blockIdx.x * TILE;
    const long long c = c0 + tx * VEC;
    // Output row oc = an input column, output columns = input rows r0 + tx*VEC + k.
    const long long orow = r0 + tx * VEC;
#if PACK
    __shared__ unsigned tile[TILE / 2][TILE + PAD]; // tile[i][c] = in[2i][c] | in[2i+1][c] << 16
#pragma unroll
    for (int r = ty; r < TILE / 2; r += BLOCK_ROWS) {
        const long long ir = r0 + 2 * r; // rows is even: ir < rows implies ir + 1 < rows
        if (ir < rows && c < cols) {
            const V a = *reinterpret_cast<const V*>(in + ir * cols + c);
            const V b = *reinterpret_cast<const V*>(in + (ir + 1) * cols + c);
#pragma unroll
            for (int k = 0; k < VEC; ++k)
                tile[r][tx * VEC + k] = (unsigned)a.v[k] | ((unsigned)b.v[k] << 16);
        }
    }
    __syncthreads();
#pragma unroll
    for (int cc = ty; cc < TILE; cc += BLOCK_ROWS) {
        if (c0 + cc < cols && orow < rows) {
            V o;
#pragma unroll
            for (int q = 0; q < VEC / 2; ++q) {
                const unsigned w = tile[tx * (VEC / 2) + q][cc];
                o.v[2 * q] = (T)(w & 0xffffu);
                o.v[2 * q + 1] = (T)(w >> 16);
            }
            *reinterpret_cast<V*>(out + (c0 + cc) * rows + orow) = o;
        }
    }
#else
    __shared__ T tile[TILE][TILE + PAD];
#ifdef RAGGED
    // Input rows that VEC does not divide start anywhere in a vector
    // (docs/perf/kernels.md#rows-of-odd-length): each tile row is read as the aligned vectors
    // that cover it (one more than TX where the row starts ph elements into a vector; inside
    // the tensor, as VEC divides rows and so the tensor's size), each element put in its column;
    // the stores along the output rows below stay VEC wide (VEC divides rows).
#pragma unroll
    for (int r = ty; r < TILE; r += BLOCK_ROWS) {
        if (r0 + r < rows) {
            const long long first = (r0 + r) * cols + c0;
            const int ph = (int)(first % VEC);
            const V* src = reinterpret_cast<const V*>(in + first - ph);
#pragma unroll
            for (int k = 0; k < 2; ++k) {
                const int m = tx + k * TX; // vector m holds tile columns m * VEC - ph + q
                if (m * VEC - ph >= TILE || c0 + m * VEC - ph >= cols) continue;
                const V a = src[m];
#pragma unroll
                for (int q = 0; q < VEC; ++q) {
                    const int col = m * VEC - ph + q;
                    if (col >= 0 && col < TILE && c0 + col < cols) tile[r][col] = a.v[q];
                }
            }
        }
    }
#else
#pragma unroll
    for (int r = ty; r < TILE; r += BLOCK_ROWS) {
        if (r0 + r < rows && c < cols) {
            const V a = *reinterpret_cast<const V*>(in + (r0 + r) * cols + c);
#pragma unroll
            for (int k = 0; k < VEC; ++k)
                tile[r][tx * VEC + k] = a.v[k];
        }
    }
#endif
    __syncthreads();
#pragma unroll
    for (int cc = ty; cc < TILE; cc += BLOCK_ROWS) {
        if (c0 + cc < cols && orow < rows) {
            V o;
#pragma unroll
            for (int k = 0; k < VEC; ++k)
                o.v[k] = tile[tx * VEC + k][cc];
            *reinterpret_cast<V*>(out + (c0 + cc) * rows + orow) = o;
        }
    }
#endif
    KTUNE_EPILOGUE(out, (long long)rows * cols)
}
