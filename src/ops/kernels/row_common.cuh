// Device code shared by the row-op kernels (softmax, layernorm, rowsum), assembled by
// row_op::source after the prelude and the config constants (docs/perf/kernels.md).
#ifndef CLUSTER
#define CLUSTER 1
#endif
constexpr int WARPS = TPR / 32;            // 0: a row's group is part of one warp
constexpr int LANES = TPR < 32 ? TPR : 32; // lanes of a warp that share a row
constexpr int CS = C / CLUSTER;            // elements of the row one block holds
constexpr int NV = CS / VEC;               // vectors of those
#ifdef RAGGED
// Rows whose length VEC does not divide (cached form, no cluster): a row starts anywhere in a
// vector, so a thread's vectors cover the row's aligned span, at most NVR vectors; the first and
// last are loaded and stored element by element (the row's scalar head and tail), the others
// as whole aligned vectors.
constexpr int NVR = (C + 2 * VEC - 2) / VEC;
#else
constexpr int NVR = NV;
#endif
constexpr int ITEMS = (NVR + TPR - 1) / TPR; // vectors per thread when cached
typedef vec_t<VEC> V;
// Row groups of a block that reduce at once: the staged forms take their rows in turn.
#if defined(STAGE_smem_tma)
constexpr int GROUPS = 1;
#else
constexpr int GROUPS = RPB;
#endif

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int o = LANES / 2; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
    for (int o = LANES / 2; o > 0; o >>= 1)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

#if CLUSTER > 1
// Thread-block clusters (sm_90) in PTX: what cooperative_groups::cluster_group's block_rank(),
// sync() (split into arrive and wait) and map_shared_rank() compile to, without its headers.
__device__ __forceinline__ unsigned cluster_rank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
__device__ __forceinline__ void cluster_arrive() {
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() {
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
template <class P>
__device__ __forceinline__ P* map_shared_rank(P* p, unsigned rank) {
    unsigned long long o;
    asm volatile("mapa.u64 %0, %1, %2;" : "=l"(o) : "l"(p), "r"(rank));
    return reinterpret_cast<P*>(o);
}
__shared__ float2 ktune_part; // this block's partial result, read by the whole cluster
// Publish this block's pair; afterwards cluster_part(r) reads block r's (distributed shared
// memory). cluster_done() ends the reads; cluster_finish() keeps the block (and its shared
// memory) alive until every block of the cluster has finished reading.
__device__ __forceinline__ void cluster_publish(float2 v) {
    if (threadIdx.x == 0) ktune_part = v;
    cluster_arrive();
    cluster_wait();
}
__device__ __forceinline__ float2 cluster_part(unsigned r) {
    return *map_shared_rank(&ktune_part, r);
}
__device__ __forceinline__ void cluster_done() {
    cluster_arrive();
}
__device__ __forceinline__ void cluster_finish() {
    cluster_wait();
}
#define KTUNE_CLUSTER_DIMS __cluster_dims__(CLUSTER, 1, 1)
#else
#define KTUNE_CLUSTER_DIMS
#endif

// Where this thread works: its row, its lane t in the row's group, and the first element of
// the row (or, split across a cluster, of this block's slice of it).
struct row_pos {
    long long row, first;
    int lrow, t, col0;
    bool active;
};
__device__ __forceinline__ row_pos row_position(int rows) {
    row_pos p;
#if CLUSTER > 1
    p.lrow = 0;
    p.t = threadIdx.x;
    p.row = blockIdx.x / CLUSTER; // the grid is rows * CLUSTER blocks exactly
    p.active = true;
    p.col0 = (int)cluster_rank() * CS;
#else
    p.lrow = threadIdx.x / TPR;
    p.t = threadIdx.x % TPR;
    p.row = (long long)blockIdx.x * RPB + p.lrow;
    p.active = p.row < rows;
    p.col0 = 0;
#endif
    p.first = (p.active ? p.row : 0) * (long long)C + p.col0;
    return p;
}

// Every thread of the block must call these (they may hold __syncthreads).
__device__ __forceinline__ float group_sum(float v, float* red, const row_pos& p) {
    v = warp_sum(v);
    if (WARPS > 1) {
        if ((p.t & 31) == 0) red[p.lrow * WARPS + (p.t >> 5)] = v;
        __syncthreads();
        v = 0.f;
#pragma unroll
        for (int i = 0; i < WARPS; ++i)
            v += red[p.lrow * WARPS + i];
        __syncthreads();
    }
    return v;
}
__device__ __forceinline__ float group_max(float v, float* red, const row_pos& p) {
    v = warp_max(v);
    if (WARPS > 1) {
        if ((p.t & 31) == 0) red[p.lrow * WARPS + (p.t >> 5)] = v;
        __syncthreads();
        v = -KTUNE_INF;
#pragma unroll
        for (int i = 0; i < WARPS; ++i)
            v = fmaxf(v, red[p.lrow * WARPS + i]);
        __syncthreads();
    }
    return v;
}

// The row (slice) cached in registers as loaded (bf16 stays 2 bytes: twice the bytes in
// flight per register as floats would hold); raw[i] is vector t + i * TPR, `pad` where a
// thread has no element. One DRAM read per element.
#ifdef RAGGED
// The row's offset in its first aligned vector, and the vectors its aligned span covers.
__device__ __forceinline__ int ragged_off(const row_pos& p) {
    return (int)(p.first % VEC);
}
__device__ __forceinline__ int span_len(int off) {
    return (off + C + VEC - 1) / VEC;
}
// Vector j of a row's aligned span at ya (the row starting `off` elements into it): the row's
// own elements only, the head and tail element by element (the rest are other rows').
__device__ __forceinline__ void span_store_at(V* ya, int j, int off, const V& o) {
    const int e0 = j * VEC - off;
    if (e0 >= 0 && e0 + VEC <= C) {
        ya[j] = o;
        return;
    }
    T* ys = reinterpret_cast<T*>(ya) + off; // the row's first element
#pragma unroll
    for (int k = 0; k < VEC; ++k)
        if (e0 + k >= 0 && e0 + k < C) ys[e0 + k] = o.v[k];
}
__device__ __forceinline__ void load_row(V (&raw)[ITEMS], const V* xr, const row_pos& p, T pad) {
    const T* xs = reinterpret_cast<const T*>(xr); // the row's first element
    const int off = ragged_off(p);
    const V* xa = reinterpret_cast<const V*>(xs - off); // aligned: the tensor is
    const int nvs = span_len(off);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const int j = p.t + i * TPR;
        if (p.active && j > 0 && j < nvs - 1) {
            raw[i] = xa[j];
        } else {
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                const int e = j * VEC + k - off;
                raw[i].v[k] = p.active && e >= 0 && e < C ? xs[e] : pad;
            }
        }
    }
}
// y's vector j = f(j, x's cached vector j); j counts the row's aligned span (its element k is
// column j * VEC + k - ragged_off(p)).
template <class F>
__device__ __forceinline__ void store_row_vec(V* yr, const V (&raw)[ITEMS], const row_pos& p, F f) {
    const int off = ragged_off(p);
    V* ya = reinterpret_cast<V*>(reinterpret_cast<T*>(yr) - off);
    const int nvs = span_len(off);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const int j = p.t + i * TPR;
        if (p.active && j < nvs) span_store_at(ya, j, off, f(j, raw[i]));
    }
}
#else
__device__ __forceinline__ void load_row(V (&raw)[ITEMS], const V* xr, const row_pos& p, T pad) {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const int j = p.t + i * TPR;
        if (p.active && j < NV) {
            raw[i] = xr[j];
        } else {
#pragma unroll
            for (int k = 0; k < VEC; ++k)
                raw[i].v[k] = pad;
        }
    }
}
// y's vector j = f(j, x's cached vector j) for the vectors this thread owns.
template <class F>
__device__ __forceinline__ void store_row_vec(V* yr, const V (&raw)[ITEMS], const row_pos& p, F f) {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const int j = p.t + i * TPR;
        if (p.active && j < NV) yr[j] = f(j, raw[i]);
    }
}
#endif
// y = f(x) element by element, x the cached element as float.
template <class F>
__device__ __forceinline__ void store_row(V* yr, const V (&raw)[ITEMS], const row_pos& p, F f) {
    store_row_vec(yr, raw, p, [&](int, const V& a) {
        V o;
#pragma unroll
        for (int k = 0; k < VEC; ++k)
            o.v[k] = from_f(f(to_f(a.v[k])));
        return o;
    });
}
