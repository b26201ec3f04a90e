// Rowsum candidate kernel, assembled by row_op::source after row_common.cuh (and tma.cuh).
extern "C" __global__ void __launch_bounds__(KTUNE_BLOCK)
    ktune_op_kernel(const T* __restrict__ x, T* __restrict__ y, int rows, int cols) {
    __shared__ float red[GROUPS * (WARPS > 0 ? WARPS : 1)];
    const row_pos p = row_position(rows);
    const V* xr = reinterpret_cast<const V*>(x + p.first);
    float acc[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
        acc[u] = 0.f;
#if defined(STAGE_smem_tma)
    // Row k of the block's RPB in flight by bulk copies (one thread issues them) while row
    // k - 1 is added up; the block adds each chunk as it lands.
    __shared__ __align__(8) unsigned long long bars[NBUF * NCH];
    mbar_setup(bars, NBUF * NCH);
    const long long row0 = (long long)blockIdx.x * RPB;
    if (row0 < rows) stage_row(reinterpret_cast<const V*>(x + row0 * C), bars, 0);
    for (int k = 0; k < RPB && row0 + k < rows; ++k) {
        if (k + 1 < RPB && row0 + k + 1 < rows)
            stage_row(reinterpret_cast<const V*>(x + (row0 + k + 1) * C), bars, k + 1);
        float a0 = 0.f;
        for_staged(bars, k, p.t, [&](int, const V& a) {
#pragma unroll
            for (int e = 0; e < VEC; ++e)
                a0 += to_f(a.v[e]);
        });
        a0 = group_sum(a0, red, p);
        if (p.t == 0) y[row0 + k] = from_f(a0);
        __syncthreads(); // row k's buffer is read: row k + 2 may land in it
    }
    KTUNE_EPILOGUE(y, (long long)rows)
    return;
#elif defined(RAGGED)
    // A row that VEC does not divide: its aligned span, the first and last vectors element by
    // element (masked to the row), the others whole (row_common.cuh).
    if (p.active) {
        const T* xs = x + p.first;
        const int off = (int)(p.first % VEC);
        const V* xa = reinterpret_cast<const V*>(xs - off);
        const int nvs = (off + C + VEC - 1) / VEC;
        for (int j = p.t; j < nvs; j += UNROLL * TPR) {
            V a[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
                const int ju = j + u * TPR;
                if (ju > 0 && ju < nvs - 1) {
                    a[u] = xa[ju];
                } else {
#pragma unroll
                    for (int k = 0; k < VEC; ++k) {
                        const int e = ju * VEC + k - off;
                        a[u].v[k] = e >= 0 && e < C ? xs[e] : from_f(0.f);
                    }
                }
            }
#pragma unroll
            for (int u = 0; u < UNROLL; ++u)
#pragma unroll
                for (int k = 0; k < VEC; ++k)
                    acc[u] += to_f(a[u].v[k]);
        }
    }
#else
    if (p.active) {
        // Whole chunks of UNROLL loads, the tail predicated: a row shorter than one chunk per
        // thread still gets all its loads in flight at once.
        for (int j = p.t; j < NV; j += UNROLL * TPR) {
            V a[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
                if (j + u * TPR < NV) {
                    a[u] = xr[j + u * TPR];
                } else {
#pragma unroll
                    for (int k = 0; k < VEC; ++k)
                        a[u].v[k] = from_f(0.f);
                }
            }
#pragma unroll
            for (int u = 0; u < UNROLL; ++u)
#pragma unroll
                for (int k = 0; k < VEC; ++k)
                    acc[u] += to_f(a[u].v[k]);
        }
    }
#endif
    float s = 0.f;
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
        s += acc[u];
    s = group_sum(s, red, p);
    if (p.active && p.t == 0) y[p.row] = from_f(s);
    KTUNE_EPILOGUE(y, (long long)rows)
}
