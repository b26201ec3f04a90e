// LayerNorm candidate kernel, assembled by row_op::source after row_common.cuh (and tma.cuh).
// Same row-group structure as softmax: the row cached in registers (exact two-pass variance),
// or streamed twice (sum and sum of squares in the first pass), or split across a cluster
// (each block's slice mean and centred sum of squares, combined exactly through DSMEM), or
// staged in shared memory by bulk copies (one row at a time, or smem_rows: several at once).
// Equal-sized slices: the row mean is the mean of the slice means, and the centred sum of
// squares adds each slice's plus CS * (slice mean - row mean)^2 (Chan et al.).
__device__ __forceinline__ void combine_slices(float& mean, float& q) {
#if CLUSTER > 1
    cluster_publish(make_float2(mean, q));
    float gmean = 0.f, gq = 0.f;
#pragma unroll
    for (int r = 0; r < CLUSTER; ++r)
        gmean += cluster_part(r).x;
    gmean *= 1.f / CLUSTER;
#pragma unroll
    for (int r = 0; r < CLUSTER; ++r) {
        const float2 b = cluster_part(r);
        gq += b.y + CS * (b.x - gmean) * (b.x - gmean);
    }
    cluster_done();
    mean = gmean;
    q = gq;
#endif
}

#if defined(RAGGED) && defined(STAGE_smem_tma) && defined(SHIFTED_OPS) && SHIFTED_OPS &&           \
    !defined(RAGGED_RING)
// Odd staged rows with their operands shifted once a launch (the host sets SHIFTED_OPS: rows of
// 128 KiB and less, or the hand-set key; else shifted per vector in the threads,
// column_operand.cuh; docs/perf/kernels.md#layernorm-shifted-operands): the prologue writes, for
// each of the VEC offsets a row can start at, gamma and beta placed on that row's aligned span
// (the op's workspace, ops::op::workspace_elements), so the store loop reads them as aligned
// vectors at the span's index, as an aligned row does: no shift in the threads, the aligned row's
// ring.
#define KTUNE_SHIFTED 1
#define KTUNE_WS_PARAM , T* __restrict__ ws
constexpr int WSW = NVR * VEC; // one offset's operand: the span's vectors
extern "C" __global__ void __launch_bounds__(256)
    ktune_op_prologue(const T* __restrict__, const T* __restrict__ gamma,
                      const T* __restrict__ beta, T* __restrict__, int, int, T* __restrict__ ws) {
    const long long n = 2LL * VEC * WSW;
    for (long long i = blockIdx.x * 256LL + threadIdx.x; i < n; i += gridDim.x * 256LL) {
        const int off = (int)(i / (2 * WSW)), c = (int)(i % WSW) - off;
        const T* src = (i / WSW) % 2 ? beta : gamma;
        ws[i] = c >= 0 && c < C ? src[c] : from_f(0.f);
    }
}
#else
#define KTUNE_WS_PARAM
#endif
// Hand-set config keys (not axes; the defaults below are what the space runs):
// GB_PREFETCH: depth of the gamma/beta ring of the staged forms' store loop: the first rounds are
// loaded into registers before the statistics exchange (their L2 round trip overlaps the block
// and cluster barriers), and each round then loads the operands GB_PREFETCH rounds ahead, so
// the loop never waits a whole L2 round trip per unrolled batch. 0: loads in the loop.
// PACKED_CVT: bf16 outputs converted two at a time (cvt.rn.bf16x2.f32) instead of one by one.
#ifndef PACKED_CVT
#define PACKED_CVT 1
#endif
// y = (x - mean) * rstd * g + b for one vector, the vectors by value (references into shared
// or global memory cost one load per element: 16-bit shared loads, or re-read operands).
__device__ __forceinline__ V ln_vec(V a, V g, V b, float mean, float rstd) {
    float f[VEC];
#pragma unroll
    for (int e = 0; e < VEC; ++e)
        f[e] = fmaf((to_f(a.v[e]) - mean) * rstd, to_f(g.v[e]), to_f(b.v[e]));
#if PACKED_CVT
    return to_vec(f);
#else
    V o;
#pragma unroll
    for (int e = 0; e < VEC; ++e)
        o.v[e] = from_f(f[e]);
    return o;
#endif
}
#ifdef RAGGED
// Vector j of a ragged row's aligned span (docs/perf/kernels.md#rows-of-odd-length), the row
// starting `off` elements into it: gamma and beta shifted to its columns (column_vec). The
// span's head and tail hold places of the neighbouring rows, never stored: their operands are
// whatever column_vec's wrap gives, so no branch stands between the loads.
__device__ __forceinline__ int ragged_col0(int j, int off) {
    const int e0 = j * VEC - off;
    return e0 < 0 ? e0 + C : e0 < C ? e0 : e0 - C;
}
__device__ __forceinline__ V ln_ragged(const V& a, int j, int off, const T* __restrict__ gamma,
                                       const T* __restrict__ beta, float mean, float rstd) {
    const int c0 = ragged_col0(j, off);
    return ln_vec(a, column_vec<VEC>(gamma, c0, C), column_vec<VEC>(beta, c0, C), mean, rstd);
}
#endif
#if defined(STAGE_smem_rows) || defined(STAGE_smem_tma)
// Register tails that make room for two blocks a SM (96 KiB staged each; row_op defines
// KTUNE_TWO_BLOCKS): rows at once over 112 KiB, or one slice over 112 KiB with tma_reg_tail.
#if defined(KTUNE_TWO_BLOCKS)
#define KTUNE_BOUNDS __launch_bounds__(KTUNE_BLOCK, 2)
#elif defined(MIN_BLOCKS) // hand-set min_blocks: registers capped for that many blocks a SM
#define KTUNE_BOUNDS __launch_bounds__(KTUNE_BLOCK, MIN_BLOCKS)
#elif defined(KTUNE_SHIFTED)
// Registers capped for as many blocks as shared memory leaves room for (LN_BPS): H200, bf16
// 4096x32001 at 512 threads 86.7 % of the copy with the cap (three blocks a SM), 82.2 % without
// (44 registers: two).
#define KTUNE_BOUNDS __launch_bounds__(KTUNE_BLOCK, LN_BPS > 0 ? LN_BPS : 1)
#else
#define KTUNE_BOUNDS __launch_bounds__(KTUNE_BLOCK)
#endif
// The store loop's rounds: ROUNDS staged, then REG_ROUNDS in registers; round i's vector.
constexpr int TR = ROUNDS + REG_ROUNDS;
__device__ __forceinline__ int gb_index(int i, int t) {
    return i < ROUNDS ? i * TPR + t : SNV + (i - ROUNDS) * TPR + t;
}
__device__ __forceinline__ bool gb_valid(int i, int t) {
    return i >= ROUNDS || i * TPR + t < SNV;
}
// Blocks a SM that shared memory leaves room for.
#if defined(STAGE_smem_rows)
constexpr int LN_SMEM = RPB * SNV * 16 + 1536; // + the per-block reserve and static arrays
#else
constexpr int LN_SMEM = NBUF * SNV * 16 + 1536;
#endif
constexpr int LN_BPS0 = 228 * 1024 / LN_SMEM;
constexpr int LN_BPS = LN_BPS0 * KTUNE_BLOCK > 2048 ? 2048 / KTUNE_BLOCK : LN_BPS0;
#ifdef GB_PREFETCH
constexpr int GBP = GB_PREFETCH;
#else
// Default depth: 2 rounds (8 registers each: two 16-byte vectors) for blocks under 1024 threads
// where a thread has 64 registers at the occupancy shared memory allows (ptxas: 58-64 with the ring
// at 256-512 threads, 34-40 without), else none: 64 KiB blocks of 512 threads run 3 a SM at 42
// registers. H200 (docs/perf/kernels.md#layernorm-register-tails): +2 points at 256 threads (bf16
// 4096x32768 one row 69.1 vs 67.0 %, fp32 4096x32768 two rows in clusters of 4 90.2 vs 88.1 %),
// -1.4 at 1024 threads (fp32 4096x32768 one row, 89.4 vs 90.8 %, both calls). Blocks with tails for
// two a SM hold their registers for the tails (rows at once: 120 at 256 threads; 2 rounds spill).
#if defined(KTUNE_TWO_BLOCKS)
constexpr int GBP = 0;
#else
constexpr int GBP =
    KTUNE_BLOCK < 1024 && 65536 / (KTUNE_BLOCK * (LN_BPS > 0 ? LN_BPS : 1)) >= 64 ? 2 : 0;
#endif
#endif
// The ring needs the loop fully unrolled (slots by compile-time index): at most 32 rounds.
#if defined(RAGGED) && !defined(KTUNE_SHIFTED)
constexpr int PF = 0; // the ring indexes gamma and beta by the span's vectors: aligned rows only
#else
constexpr int PF = TR > 32 ? 0 : GBP < TR ? GBP : TR;
#endif
#if defined(RAGGED) && defined(STAGE_smem_tma) && !defined(KTUNE_SHIFTED)
// The ring of rows that VEC does not divide (docs/perf/kernels.md#layernorm-ragged-ring): a slot
// holds the two aligned vectors around each operand's columns (column_pair_load), loaded RRD
// rounds ahead (the first before the statistics exchange); the shift waits until the round is
// stored, so no load's L2 round trip stands in the store loop. The loop unrolls whole: rows of
// more than 32 rounds a thread go without (the loop as before). Hand-set ragged_ring: the depth.
// H200: one round +4..10 points of the copy on 32001- and 50257-rows (bf16 256-512 threads, fp32
// 1024), two rounds no better and 80-125 registers at 512 threads.
#ifdef RAGGED_RING
constexpr int RRD = RAGGED_RING < ROUNDS ? RAGGED_RING : ROUNDS;
#else
constexpr int RRD = ROUNDS <= 32 ? 1 : 0;
#endif
static_assert(RRD == 0 || ROUNDS <= 32, "ragged_ring: the store loop unrolls whole");
struct ragged_ring {
    column_pair<VEC> g[RRD > 0 ? RRD : 1], b[RRD > 0 ? RRD : 1];
};
__device__ __forceinline__ void ragged_fill(ragged_ring& r, int slot, int i,
                                            const T* __restrict__ gamma, const T* __restrict__ beta,
                                            int t) {
    // Unconditional: column_pair_load clamps to the operands' last whole vector.
    const int c0 = ragged_col0(i * TPR + t, span_off());
    r.g[slot] = column_pair_load<VEC>(gamma, c0, C);
    r.b[slot] = column_pair_load<VEC>(beta, c0, C);
}
__device__ __forceinline__ void ragged_ring_load(ragged_ring& r, const T* __restrict__ gamma,
                                                 const T* __restrict__ beta, int t) {
#pragma unroll
    for (int i = 0; i < RRD; ++i)
        ragged_fill(r, i, i, gamma, beta, t);
}
// Round i's vector from the ring (i a compile-time constant), its slot refilled with round
// i + RRD's pairs.
__device__ __forceinline__ V ragged_take(ragged_ring& r, int i, const V& a,
                                         const T* __restrict__ gamma, const T* __restrict__ beta,
                                         int t, float mean, float rstd) {
    const column_pair<VEC> g = r.g[i % RRD], b = r.b[i % RRD];
    if (i + RRD < ROUNDS) ragged_fill(r, i % RRD, i + RRD, gamma, beta, t);
    const int c0 = ragged_col0(i * TPR + t, span_off());
    return ln_vec(a, column_pair_finish<VEC>(g, gamma, c0, C),
                  column_pair_finish<VEC>(b, beta, c0, C), mean, rstd);
}
#endif
struct gb_ring {
    V g[PF > 0 ? PF : 1], b[PF > 0 ? PF : 1];
};
__device__ __forceinline__ void gb_load(gb_ring& o, const V* __restrict__ gv,
                                        const V* __restrict__ bv, int t) {
#pragma unroll
    for (int i = 0; i < PF; ++i)
        if (gb_valid(i, t)) {
            o.g[i] = gv[gb_index(i, t)];
            o.b[i] = bv[gb_index(i, t)];
        }
}
// Round i's operands from the ring (i a compile-time constant), its slot refilled with round
// i + PF's.
__device__ __forceinline__ void gb_take(gb_ring& o, int i, V& g, V& b, const V* __restrict__ gv,
                                        const V* __restrict__ bv, int t) {
    g = o.g[i % PF];
    b = o.b[i % PF];
    if (i + PF < TR && gb_valid(i + PF, t)) {
        o.g[i % PF] = gv[gb_index(i + PF, t)];
        o.b[i % PF] = bv[gb_index(i + PF, t)];
    }
}
#else
#define KTUNE_BOUNDS __launch_bounds__(KTUNE_BLOCK)
#endif

extern "C" __global__ void KTUNE_BOUNDS KTUNE_CLUSTER_DIMS
ktune_op_kernel(const T* __restrict__ x, const T* __restrict__ gamma, const T* __restrict__ beta,
                T* __restrict__ y, int rows, int cols KTUNE_WS_PARAM) {
    __shared__ float red[GROUPS * (WARPS > 0 ? WARPS : 1)];
    const row_pos p = row_position(rows);
    const V* xr = reinterpret_cast<const V*>(x + p.first);
    V* yr = reinterpret_cast<V*>(y + p.first);
#ifdef KTUNE_SHIFTED
    // The operands placed on this row's span (one row a block: blockIdx.x is the row).
    const V* gv = reinterpret_cast<const V*>(ws + 2LL * ((long long)blockIdx.x * C % VEC) * WSW);
    const V* bv = gv + WSW / VEC;
#else
    const V* gv = reinterpret_cast<const V*>(gamma + p.col0);
    const V* bv = reinterpret_cast<const V*>(beta + p.col0);
#endif
#if defined(STAGE_smem_rows)
    // RPB rows (slices) staged at once, each by its own NCH bulk copies; their statistics
    // reduced together (one block barrier, one cluster exchange for all of them); then the store
    // loop reads each gamma/beta vector once from L2 for all RPB rows. Per row the L2 carries x,
    // y and 2 / RPB rows of gamma/beta instead of 2: one block per row re-reads them every row
    // (L1 cannot hold a 131072-row's), which caps layernorm's long rows at the L2's rate.
    __shared__ __align__(8) unsigned long long bars[RPB * NCH];
    __shared__ float red2[2 * RPB * (WARPS > 0 ? WARPS : 1)];
    // Over 112 KiB for RPB slices, each row keeps its last REG_ROUNDS * TPR vectors in registers
    // (SNV staged): 96 KiB a block, two blocks a SM.
    mbar_setup(bars, RPB * NCH);
    V* const buf = reinterpret_cast<V*>(ktune_smem);
    const long long row0 = (long long)(blockIdx.x / CLUSTER) * RPB;
    const int nrows = rows - row0 < RPB ? (int)(rows - row0) : RPB; // a partial last group
    if (threadIdx.x == 0) {
        for (int r = 0; r < nrows; ++r) {
            const V* src = reinterpret_cast<const V*>(x + (row0 + r) * C + p.col0);
            for (int c = 0; c < NCH; ++c) {
                const int n = (c + 1) * CV < SNV ? CV : SNV - c * CV;
                mbar_expect(&bars[r * NCH + c], n * (unsigned)sizeof(V));
                bulk_load(buf + r * SNV + c * CV, src + c * CV, n * (unsigned)sizeof(V),
                          &bars[r * NCH + c]);
            }
        }
    }
    V tl[RPB][REG_ROUNDS > 0 ? REG_ROUNDS : 1];
#pragma unroll
    for (int r = 0; r < RPB; ++r)
#pragma unroll
        for (int i = 0; i < REG_ROUNDS; ++i)
            if (r < nrows)
                tl[r][i] =
                    reinterpret_cast<const V*>(x + (row0 + r) * C + p.col0)[SNV + i * TPR + p.t];
    // Shifted sums per row (K: the slice's first element), per vector lane within a row.
    float s[RPB], q[RPB], mean[RPB], rstd[RPB];
#pragma unroll
    for (int r = 0; r < RPB; ++r) {
        float sv[VEC], qv[VEC], shift = 0.f;
#pragma unroll
        for (int e = 0; e < VEC; ++e)
            sv[e] = qv[e] = 0.f;
        if (r < nrows) {
#pragma unroll
            for (int c = 0; c < NCH; ++c) {
                mbar_wait(&bars[r * NCH + c], 0);
                if (c == 0) shift = to_f(buf[r * SNV].v[0]);
#pragma unroll 8
                for (int i = 0; i < RPC; ++i) {
                    const int j = c * CV + i * TPR + p.t;
                    if (j < SNV) {
                        const V a = buf[r * SNV + j];
#pragma unroll
                        for (int e = 0; e < VEC; ++e) {
                            const float d = to_f(a.v[e]) - shift;
                            sv[e] += d;
                            qv[e] = fmaf(d, d, qv[e]);
                        }
                    }
                }
            }
#pragma unroll
            for (int i = 0; i < REG_ROUNDS; ++i)
#pragma unroll
                for (int e = 0; e < VEC; ++e) {
                    const float d = to_f(tl[r][i].v[e]) - shift;
                    sv[e] += d;
                    qv[e] = fmaf(d, d, qv[e]);
                }
        }
        s[r] = sv[0];
        q[r] = qv[0];
#pragma unroll
        for (int e = 1; e < VEC; ++e) {
            s[r] += sv[e];
            q[r] += qv[e];
        }
        s[r] = warp_sum(s[r]);
        q[r] = warp_sum(q[r]);
        mean[r] = shift; // the shift until the sums are complete
    }
    gb_ring pf;
    if (PF > 0) gb_load(pf, gv, bv, p.t); // in flight across the block and cluster exchange
    if (WARPS > 1) {
        if ((p.t & 31) == 0)
#pragma unroll
            for (int r = 0; r < RPB; ++r) {
                red2[(2 * r) * WARPS + (p.t >> 5)] = s[r];
                red2[(2 * r + 1) * WARPS + (p.t >> 5)] = q[r];
            }
        __syncthreads();
#pragma unroll
        for (int r = 0; r < RPB; ++r) {
            s[r] = q[r] = 0.f;
#pragma unroll
            for (int i = 0; i < WARPS; ++i) {
                s[r] += red2[(2 * r) * WARPS + i];
                q[r] += red2[(2 * r + 1) * WARPS + i];
            }
        }
    }
#pragma unroll
    for (int r = 0; r < RPB; ++r) {
        mean[r] += s[r] * (1.f / CS);
        q[r] = fmaxf(q[r] - s[r] * s[r] * (1.f / CS), 0.f);
    }
#if CLUSTER > 1
    // Chan's combination per row, as combine_slices, all RPB rows through one cluster barrier.
    __shared__ float2 parts[RPB];
    if (threadIdx.x == 0)
#pragma unroll
        for (int r = 0; r < RPB; ++r)
            parts[r] = make_float2(mean[r], q[r]);
    cluster_arrive();
    cluster_wait();
#pragma unroll
    for (int r = 0; r < RPB; ++r) {
        float gmean = 0.f, gq = 0.f;
#pragma unroll
        for (int k = 0; k < CLUSTER; ++k)
            gmean += map_shared_rank(&parts[r], k)->x;
        gmean *= 1.f / CLUSTER;
#pragma unroll
        for (int k = 0; k < CLUSTER; ++k) {
            const float2 b = *map_shared_rank(&parts[r], k);
            gq += b.y + CS * (b.x - gmean) * (b.x - gmean);
        }
        mean[r] = gmean;
        q[r] = gq;
    }
    cluster_arrive(); // done reading the peers' parts
#endif
#pragma unroll
    for (int r = 0; r < RPB; ++r)
        rstd[r] = rsqrtf(q[r] * (1.f / C) + 1e-5f);
    V* const yb = reinterpret_cast<V*>(y + row0 * C + p.col0);
    // Each gamma/beta vector once for RPB rows: from the ring, or loaded in the loop.
    if (PF > 0) {
#pragma unroll
        for (int i = 0; i < TR; ++i) {
            V g, b;
            gb_take(pf, i, g, b, gv, bv, p.t);
            const int j = gb_index(i, p.t);
            if (gb_valid(i, p.t))
#pragma unroll
                for (int r = 0; r < RPB; ++r)
                    if (r < nrows)
                        yb[r * (C / VEC) + j] = ln_vec(
                            i < ROUNDS ? buf[r * SNV + j] : tl[r][i < ROUNDS ? 0 : i - ROUNDS], g,
                            b, mean[r], rstd[r]);
        }
    } else {
#pragma unroll 4
        for (int i = 0; i < ROUNDS; ++i) {
            const int j = i * TPR + p.t;
            if (j < SNV) {
                const V g = gv[j], b = bv[j];
#pragma unroll
                for (int r = 0; r < RPB; ++r)
                    if (r < nrows)
                        yb[r * (C / VEC) + j] = ln_vec(buf[r * SNV + j], g, b, mean[r], rstd[r]);
            }
        }
#pragma unroll
        for (int i = 0; i < REG_ROUNDS; ++i) {
            const int j = SNV + i * TPR + p.t;
            const V g = gv[j], b = bv[j];
#pragma unroll
            for (int r = 0; r < RPB; ++r)
                if (r < nrows) yb[r * (C / VEC) + j] = ln_vec(tl[r][i], g, b, mean[r], rstd[r]);
        }
    }
#if CLUSTER > 1
    cluster_wait(); // the peers have read this block's parts: its shared memory may go
#endif
#elif defined(STAGE_smem_tma)
    // Row (slice) k of the block's RPB arrives by bulk copies while row k - 1 is written. One
    // pass over the landing chunks sums d = x - K and d^2, K the slice's first element (shifted
    // sums: no cancellation for rows whose mean is far from 0); the slice's mean and centred
    // sum of squares follow exactly, and Chan's combination joins a cluster's slices. gamma and
    // beta come from L2 in the store loop: staging them would triple the shared memory and
    // cost blocks per SM (docs/perf/kernels.md#staged-rows).
    __shared__ __align__(8) unsigned long long bars[NBUF * NCH];
    mbar_setup(bars, NBUF * NCH);
    const long long row0 = (long long)(blockIdx.x / CLUSTER) * RPB;
    // A ragged row's span starts span_off() elements before it (RAGGED: one row a block).
    const long long first0 = row0 * C + p.col0 - span_off();
    if (row0 < rows) stage_row(reinterpret_cast<const V*>(x + first0), bars, 0, span_vectors());
    // A slice over 226 KiB, or over 112 KiB for two blocks a SM (a ragged row's span too): its
    // tail in registers (one row per block, the host checks it).
    static_assert(REG_ROUNDS == 0 || RPB == 1, "a register part needs one row per block");
    reg_part rg;
    if (REG_ROUNDS > 0) load_reg_part(rg, reinterpret_cast<const V*>(x + first0), p.t);
    for (int k = 0; k < RPB && row0 + k < rows; ++k) {
        if (k + 1 < RPB && row0 + k + 1 < rows)
            stage_row(reinterpret_cast<const V*>(x + first0 + (k + 1) * (long long)C), bars, k + 1);
        // The row's first element (a ragged row's span starts before it).
        const auto row_first = [&] {
            return to_f(reinterpret_cast<const T*>(stage_buf(k))[span_off()]);
        };
        // One partial (s, q) per vector lane: VEC independent FADD/FFMA chains instead of one
        // over all of a thread's elements (64 on a 64 KiB slice of 512 threads).
        float sv[VEC], qv[VEC], shift = 0.f;
#pragma unroll
        for (int e = 0; e < VEC; ++e)
            sv[e] = qv[e] = 0.f;
        bool first = true;
        for_staged(bars, k, p.t, [&](int j, const V& raw) {
            if (first) {
                shift = row_first(); // chunk 0 has landed
                first = false;
            }
            // A ragged span's places of the neighbouring rows read as the shift: d = 0.
            const V a = span_mask(j, raw, from_f(shift));
#pragma unroll
            for (int e = 0; e < VEC; ++e) {
                const float d = to_f(a.v[e]) - shift;
                sv[e] += d;
                qv[e] = fmaf(d, d, qv[e]);
            }
        });
        if (first) shift = row_first(); // a thread with no vectors
#pragma unroll
        for (int i = 0; i < REG_ROUNDS; ++i) {
            const V a = span_mask(SNV + i * TPR + p.t, rg.v[i], from_f(shift));
#pragma unroll
            for (int e = 0; e < VEC; ++e) {
                const float d = to_f(a.v[e]) - shift;
                sv[e] += d;
                qv[e] = fmaf(d, d, qv[e]);
            }
        }
        float s = sv[0], q = qv[0];
#pragma unroll
        for (int e = 1; e < VEC; ++e) {
            s += sv[e];
            q += qv[e];
        }
        // One row per block: the ring's first rounds in flight across the exchange.
        constexpr bool RING = RPB == 1 && PF > 0;
        gb_ring pf;
        if (RING) gb_load(pf, gv, bv, p.t);
#if defined(RAGGED) && !defined(KTUNE_SHIFTED)
        ragged_ring rr;
        if constexpr (RRD > 0) ragged_ring_load(rr, gamma, beta, p.t);
#endif
        s = group_sum(s, red, p);
        q = group_sum(q, red, p);
        float mean = shift + s * (1.f / CS);
        q = fmaxf(q - s * s * (1.f / CS), 0.f);
        combine_slices(mean, q);
        const float rstd = rsqrtf(q * (1.f / C) + 1e-5f);
        V* yk = reinterpret_cast<V*>(y + first0 + k * (long long)C);
        const V* sk = stage_buf(k);
        if (RING) {
#pragma unroll
            for (int i = 0; i < TR; ++i) {
                V g, b;
                gb_take(pf, i, g, b, gv, bv, p.t);
                const int j = gb_index(i, p.t);
#ifdef RAGGED
                // Shifted operands: the span's vectors, head and tail apart.
                if (i < ROUNDS ? j < span_vectors() : j < span_total())
                    span_store(yk, j,
                               ln_vec(i < ROUNDS ? sk[j] : rg.v[i < ROUNDS ? 0 : i - ROUNDS], g, b,
                                      mean, rstd));
#else
                if (gb_valid(i, p.t))
                    yk[j] = ln_vec(i < ROUNDS ? sk[j] : rg.v[i < ROUNDS ? 0 : i - ROUNDS], g, b,
                                   mean, rstd);
#endif
            }
        } else {
#if defined(KTUNE_SHIFTED)
#pragma unroll 8
            for (int i = 0; i < ROUNDS; ++i) {
                const int j = i * TPR + p.t;
                if (j < span_vectors()) span_store(yk, j, ln_vec(sk[j], gv[j], bv[j], mean, rstd));
            }
#elif defined(RAGGED)
            if constexpr (RRD > 0) {
#pragma unroll
                for (int i = 0; i < ROUNDS; ++i) {
                    const int j = i * TPR + p.t;
                    // The slot is taken and refilled in every thread: its loads never wait on j.
                    const V o = ragged_take(rr, i, sk[j < span_vectors() ? j : 0], gamma, beta, p.t,
                                            mean, rstd);
                    if (j < span_vectors()) span_store(yk, j, o);
                }
            } else {
#pragma unroll 8
                for (int i = 0; i < ROUNDS; ++i) {
                    const int j = i * TPR + p.t;
                    if (j < span_vectors())
                        span_store(yk, j, ln_ragged(sk[j], j, span_off(), gamma, beta, mean, rstd));
                }
            }
#else
#pragma unroll 8
            for (int i = 0; i < ROUNDS; ++i) {
                const int j = i * TPR + p.t;
                if (j < SNV) yk[j] = ln_vec(sk[j], gv[j], bv[j], mean, rstd);
            }
#endif
#pragma unroll
            for (int i = 0; i < REG_ROUNDS; ++i) {
                const int j = SNV + i * TPR + p.t;
#if defined(RAGGED) && !defined(KTUNE_SHIFTED)
                if (j < span_total())
                    span_store(yk, j, ln_ragged(rg.v[i], j, span_off(), gamma, beta, mean, rstd));
#else
                if (j < span_total()) span_store(yk, j, ln_vec(rg.v[i], gv[j], bv[j], mean, rstd));
#endif
            }
        }
#if CLUSTER > 1
        cluster_finish();
#endif
        __syncthreads(); // row k's buffer is read: row k + 2 may land in it
    }
#elif CACHE_ROW
    V raw[ITEMS];
    load_row(raw, xr, p, from_f(0.f));
    // Per-lane partial sums: VEC independent chains instead of one over the thread's elements.
    float sv[VEC], qv[VEC];
#pragma unroll
    for (int k = 0; k < VEC; ++k)
        sv[k] = qv[k] = 0.f;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
#pragma unroll
        for (int k = 0; k < VEC; ++k)
            sv[k] += to_f(raw[i].v[k]);
    float s = sv[0];
#pragma unroll
    for (int k = 1; k < VEC; ++k)
        s += sv[k];
    float mean = group_sum(s, red, p) * (1.f / CS);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
#ifdef RAGGED
        // The span's head and tail hold other rows' places: only the row's own columns count.
        const int e0 = (p.t + i * TPR) * VEC - ragged_off(p);
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            const float d = e0 + k >= 0 && e0 + k < C ? to_f(raw[i].v[k]) - mean : 0.f;
            qv[k] = fmaf(d, d, qv[k]);
        }
#else
        if (p.t + i * TPR < NV)
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                const float d = to_f(raw[i].v[k]) - mean;
                qv[k] = fmaf(d, d, qv[k]);
            }
#endif
    }
    float q = qv[0];
#pragma unroll
    for (int k = 1; k < VEC; ++k)
        q += qv[k];
    q = group_sum(q, red, p);
    combine_slices(mean, q);
    const float rstd = rsqrtf(q * (1.f / C) + 1e-5f);
#ifdef RAGGED
    const int off = ragged_off(p);
    store_row_vec(yr, raw, p,
                  [&](int j, const V& a) { return ln_ragged(a, j, off, gamma, beta, mean, rstd); });
#else
    store_row_vec(yr, raw, p,
                  [&](int j, const V& a) { return ln_vec(a, gv[j], bv[j], mean, rstd); });
#endif
#if CLUSTER > 1
    cluster_finish();
#endif
#else
    float s = 0.f, q = 0.f;
    if (p.active) {
#pragma unroll UNROLL
        for (int j = p.t; j < NV; j += TPR) {
            const V a = xr[j];
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                const float xv = to_f(a.v[k]);
                s += xv;
                q += xv * xv;
            }
        }
    }
    const float mean = group_sum(s, red, p) * (1.f / C);
    const float var = fmaxf(group_sum(q, red, p) * (1.f / C) - mean * mean, 0.f);
    const float rstd = rsqrtf(var + 1e-5f);
    if (p.active) {
#pragma unroll UNROLL
        for (int j = p.t; j < NV; j += TPR) {
            const V a = xr[j], g = gv[j], b = bv[j];
            V o;
#pragma unroll
            for (int k = 0; k < VEC; ++k)
                o.v[k] = from_f((to_f(a.v[k]) - mean) * rstd * to_f(g.v[k]) + to_f(b.v[k]));
            yr[j] = o;
        }
    }
#endif
    KTUNE_EPILOGUE(y, (long long)rows * C)
}
