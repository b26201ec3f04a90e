// The shared-memory stage of the row ops (stage smem_tma / smem_rows), after row_common.cuh and
// bulk_copy.cuh.
// The slice in NCH chunks of RPC rounds (a round: one vector per thread; the last chunk may be
// shorter), so each thread's share of a chunk is a compile-time count the loops unroll.
// Slices too long for shared memory (over 226 KiB: a bf16 row of 131072 in one block) keep their
// last REG_ROUNDS * TPR vectors in registers, loaded by the threads: SNV vectors are staged.
#ifndef REG_ROUNDS
#define REG_ROUNDS 0
#endif
constexpr int SNV = NVR - REG_ROUNDS * TPR; // NVR: NV, or a ragged row's aligned span
constexpr int ROUNDS = (SNV + TPR - 1) / TPR;
constexpr int NCH0 = ROUNDS >= 8 ? 8 : ROUNDS;
constexpr int RPC = (ROUNDS + NCH0 - 1) / NCH0;
constexpr int NCH = (ROUNDS + RPC - 1) / RPC;
constexpr int CV = RPC * TPR;
// A block takes RPB rows (slices) in turn; with more than one, two buffers: the next row's
// bulk copies are in flight while this row is reduced and written.
constexpr int NBUF = RPB > 1 ? 2 : 1;
extern __shared__ __align__(128) unsigned char ktune_smem[];
#ifdef RAGGED
// Staged rows that VEC does not divide (softmax, layernorm: one row per block, no cluster; row_op
// checks it; docs/perf/kernels.md#rows-of-odd-length): the row's aligned span (row_common.cuh's
// span_len), span_total() vectors from the one that holds its first element; the buffer holds
// its first span_vectors() of them, layernorm's register tail (REG_ROUNDS) the rest
// (docs/perf/kernels.md#layernorm-ragged-tails). The head and tail vectors' places of the
// neighbouring rows read as `pad` and are never written (span_store_at).
__device__ __forceinline__ int span_off() {
    return (int)(((long long)blockIdx.x * C) % VEC);
}
__device__ __forceinline__ int span_total() {
    return span_len(span_off());
}
__device__ __forceinline__ int span_vectors() {
    return span_total() < SNV ? span_total() : SNV;
}
__device__ __forceinline__ V span_mask(int j, V a, T pad) {
    const int e0 = j * VEC - span_off();
    if (e0 < 0 || e0 + VEC > C) {
#pragma unroll
        for (int k = 0; k < VEC; ++k)
            if (e0 + k < 0 || e0 + k >= C) a.v[k] = pad;
    }
    return a;
}
__device__ __forceinline__ void span_store(V* ya, int j, const V& o) {
    span_store_at(ya, j, span_off(), o);
}
#else
__device__ __forceinline__ int span_off() {
    return 0;
}
__device__ __forceinline__ int span_total() {
    return NVR;
}
__device__ __forceinline__ int span_vectors() {
    return SNV;
}
__device__ __forceinline__ V span_mask(int, const V& a, T) {
    return a;
}
__device__ __forceinline__ void span_store(V* ya, int j, const V& o) {
    ya[j] = o;
}
#endif

// Row k's buffer, its barriers, and the parity of their phase for that row.
__device__ __forceinline__ V* stage_buf(int k) {
    return reinterpret_cast<V*>(ktune_smem) + (k % NBUF) * SNV;
}
__device__ __forceinline__ unsigned long long* stage_bars(unsigned long long* bars, int k) {
    return bars + (k % NBUF) * NCH;
}
__device__ __forceinline__ unsigned stage_parity(int k) {
    return (unsigned)(k / NBUF) & 1u;
}
// Thread 0: the first nv (at most SNV) vectors at src into row k's buffer, chunk c completing
// its barrier c (a chunk past nv completes on the arrival alone). The buffer's previous row was
// read by generic loads (a __syncthreads ordered them before this): the proxy fence orders
// those reads before the copy engine's writes.
__device__ __forceinline__ void stage_row(const V* src, unsigned long long* bars, int k,
                                          int nv = SNV) {
    if (threadIdx.x != 0) return;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    V* dst = stage_buf(k);
    unsigned long long* b = stage_bars(bars, k);
    for (int c = 0; c < NCH; ++c) {
        const int n = (c + 1) * CV < nv ? CV : nv > c * CV ? nv - c * CV : 0;
        mbar_expect(&b[c], n * (unsigned)sizeof(V));
        if (n > 0) bulk_load(dst + c * CV, src + c * CV, n * (unsigned)sizeof(V), &b[c]);
    }
}
// f(j, v) for every vector j this thread owns in row k's buffer, chunk by chunk as they land.
template <class F>
__device__ __forceinline__ void for_staged(unsigned long long* bars, int k, int t, F f) {
    const V* s = stage_buf(k);
    unsigned long long* b = stage_bars(bars, k);
    const unsigned parity = stage_parity(k);
#pragma unroll
    for (int c = 0; c < NCH; ++c) {
        mbar_wait(&b[c], parity);
#pragma unroll 8
        for (int i = 0; i < RPC; ++i) {
            const int j = c * CV + i * TPR + t;
            if (j < span_vectors()) f(j, s[j]);
        }
    }
}
// The register part of the slice (REG_ROUNDS > 0): vector SNV + r * TPR + t in reg[r]; a ragged
// span's vectors past its end are not loaded (they may lie past the tensor's) and read as zeros.
struct reg_part {
    V v[REG_ROUNDS > 0 ? REG_ROUNDS : 1];
};
__device__ __forceinline__ void load_reg_part(reg_part& r, const V* src, int t) {
#pragma unroll
    for (int i = 0; i < REG_ROUNDS; ++i) {
        const int j = SNV + i * TPR + t;
        r.v[i] = j < span_total() ? src[j] : V{};
    }
}
// f(j, v) for every vector j this thread owns in row k's buffer (after for_staged).
template <class F>
__device__ __forceinline__ void for_row(int k, int t, F f) {
    const V* s = stage_buf(k);
#pragma unroll 8
    for (int i = 0; i < ROUNDS; ++i) {
        const int j = i * TPR + t;
        if (j < span_vectors()) f(j, s[j]);
    }
}
