// ktune's own Hopper GEMM (docs/perf/gemm.md#hopper-template), compiled by NVRTC for sm_90a.
// OUT (R x C, row-major) = act(alpha P (R x K, row-major) Q (C x K, row-major)^T + bias), fp32
// accumulate: both operands K-major, as a "tn" problem is stored (P = B, R = N; Q = A, C = M), so a
// consumer's accumulator pairs are two neighbouring elements of OUT's rows, and the bias (one
// value a row of D, i.e. a column of OUT) is indexed by OUT's column.
// Types (defines, docs/perf/gemm.md#hopper-types): IN_BYTES 2 (bf16 or fp16, IN_F16 saying
// which) or 1 (fp8 e4m3); OUT is fp16 for fp16 inputs, else bf16; the bias has OUT's type.
//
// Shape of the kernel:
// - persistent: one block a SM walks the tiles (BM x BN of OUT) in a grouped raster order (the
//   `group` argument: row tiles side by side, so neighbouring blocks share P and Q tiles in L2;
//   an argument, not a define, so configs that differ only in it share one compile);
// - warp-specialised: warpgroup 0 is the producer (its warp 0 runs the loop, one elected lane
//   issues the TMA loads of both operands' BK-wide slabs into a STAGES-deep ring of shared
//   memory, 128-byte swizzled),
//   CONSUMERS warpgroups each own 64 rows of the tile and run wgmma.m64nBN on the slabs
//   straight from shared memory (descriptors, no register staging);
// - mbarriers: full[s] completes when slab s has landed (the TMA's transaction bytes), empty[s]
//   when every consumer's wgmma that read it has retired (one arrival a consumer warpgroup);
// - the producer gives its registers to the consumers (setmaxnreg) where two consumers hold
//   BN = 256 accumulators each.
// - both loops are warp-uniform (the warp's role broadcast from lane 0) and keep the ring as 32-bit
//   shared addresses, so ptxas holds their counters, barrier addresses and descriptors in uniform
//   registers: a slab costs a consumer warp ~45 instructions instead of ~95, which at decode
//   shapes (small BN, one warp a scheduler) is what bound the kernel
//   (docs/perf/gemm.md#lean-consumer).
// - clusters of CLUSTER blocks (1 or 2) on neighbouring row tiles of one column tile: each
//   block loads 1 / CLUSTER of the Q slab and the TMA multicasts it to every block of the
//   cluster, which cuts the L2 -> SM traffic a slab costs (48 KiB -> 32 KiB at 128 x 256);
//   a slot of the ring is then free only when the consumers of every block have released it.
//   CLUSTER_B 1 shares P (= B, a decode GEMM's weights) instead: the cluster's blocks take
//   neighbouring column tiles of one row tile, each loads 1 / CLUSTER of the P slab for all
//   and its own Q slab, so two token tiles read a weight tile once (docs/perf/gemm.md#cluster-b).
// The host passes the two tensor maps (P: box BK x BM, Q: box BK x BN / CLUSTER, SWIZZLE_128B;
// with CLUSTER_B, P: box BK x BM / CLUSTER, Q: box BK x BN; swapped, P: box BK x the tokens
// rounded up to 8 rows) as __grid_constant__ parameters; out-of-range rows and K are zero-filled by
// the TMA, so any R, C and K of whole 16-byte rows (K % 8 == 0, K % 16 == 0 for fp8) runs.
//
// - split-K (the `splits` argument, 1 where unused): a unit of work is a tile and one of `splits`
//   slices of K; each slice's consumers write their fp32 partial D to a workspace, and the last
//   slice of a tile to finish (a counter a tile, which that slice sets back to 0 for the next
//   launch) sums the slices in slice order (the result does not depend on which finished last)
//   and stores D. What a decode GEMM (M <= 64) needs: its few tiles alone leave most SMs idle
//   (docs/perf/gemm.md#hopper-split-k). Direct stores only, no cluster (the host's rules).
//   Compiled in only where SPLIT_K is 1: its code costs an unsplit bn 256 tile ~500 bytes of
//   spills (ptxas -v), so an unsplit config's kernel has none of it.
// - swap-AB (SWAP_AB 1, a decode GEMM's form): P = A, its BM rows all of the tokens, and Q = B,
//   so a weight tile is BN rows, any multiple of 8 (a wave of tiles fits the SMs whatever N);
//   told B is weights, the early slabs are Q's; D's tile is stored transposed, directly. One
//   block a tile: no cluster, split-K or deferred epilogue (docs/perf/gemm.md#swap-ab).
// Config (defines, set by the host): BM (64 * CONSUMERS), BN (wgmma N: 8..256, a multiple of
// 8), STAGES, CONSUMERS (1 or 2), CLUSTER, CLUSTER_B (the operand a cluster shares), EPI_PARTS
// (0: a tile's D is stored when its last slab retires, the tensor cores idle meanwhile; n > 0:
// stored in n parts while the next tile's first n slabs run), TMA_STORE (1: a consumer writes its D
// into a 128-byte-swizzled staging area of shared memory, conflict-free, and one thread hands it to
// the TMA, which stores it while the next tile runs). EPILOGUE and IN_F16 (gemm_epilogue.cuh, which
// the host puts before this file). A slab's row is one 128-byte swizzle atom whatever the type:
// BK = 128 / IN_BYTES elements, and a wgmma step of 32 bytes of K (k16 for 2-byte types, k32 for
// fp8).
#ifndef IN_BYTES
#define IN_BYTES 2
#endif
#define BK (128 / IN_BYTES)
// A planted bug (the host's sm90_fault, to test the tuner's correctness gate): 1 leaves each
// unit's last K slab out of the sum, 2 never stores the last tile.
#ifndef KTUNE_FAULT
#define KTUNE_FAULT 0
#endif
#ifndef SPLIT_K
#define SPLIT_K 0
#endif
#ifndef CLUSTER_B
#define CLUSTER_B 0
#endif
#ifndef SWAP_AB
#define SWAP_AB 0
#endif
#if SWAP_AB && (CLUSTER > 1 || SPLIT_K || TMA_STORE || EPI_PARTS)
#error "the swapped form is one block a tile with direct stores (the host's sm90_rejects)"
#endif
#define THREADS (128 * (CONSUMERS + 1))

struct __align__(64) ktune_tmap {
    unsigned long long w[16];
};

__device__ __forceinline__ unsigned ktune_smem_u32(const void* p) {
    return (unsigned)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void bar_init(unsigned long long* b, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(ktune_smem_u32(b)), "r"(count)
                 : "memory");
}
__device__ __forceinline__ void bar_expect(unsigned b, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(bytes)
                 : "memory");
}
__device__ __forceinline__ void bar_arrive(unsigned b) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(b) : "memory");
}
// One arrival on the barrier at b's offset in block `rank` of the cluster (this block included),
// with the arrive's default semantics (release at CTA scope): what it orders is this thread's
// wgmma reads of a slot, retired before it arrives. A release at cluster scope fenced every
// arrival: 3.2x slower at decode shapes (docs/perf/gemm.md#cluster-release).
__device__ __forceinline__ void bar_arrive_in(unsigned b, unsigned rank) {
    asm volatile("{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
                 "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}" ::"r"(b),
                 "r"(rank)
                 : "memory");
}
// True in one lane of the (converged) warp.
__device__ __forceinline__ bool elect_one() {
    unsigned one;
    asm volatile("{\n.reg .pred p;\nelect.sync _|p, 0xffffffff;\nselp.u32 %0, 1, 0, p;\n}"
                 : "=r"(one));
    return one != 0;
}
__device__ __forceinline__ unsigned cluster_rank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
// Every thread of the cluster; not the .aligned form: nothing guarantees that a warp has
// reconverged after the single-lane branches before it (the producer's leader, thread 0).
__device__ __forceinline__ void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
}
// Waits until the phase of parity `parity` has completed (a fresh barrier is in phase 0, so a
// wait on parity 1 passes at once: the producer's first round over empty slots).
__device__ __forceinline__ void bar_wait(unsigned b, unsigned parity) {
    unsigned done;
    do {
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}"
                     : "=r"(done)
                     : "r"(b), "r"(parity)
                     : "memory");
    } while (!done);
}
// Slab (x = k, y = row) of the tensor map into shared memory, completing on `b`.
__device__ __forceinline__ void tma_load(unsigned dst, const ktune_tmap* map, int x, int y,
                                         unsigned b) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
                 "[%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
                 "l"((unsigned long long)map), "r"(x), "r"(y), "r"(b)
                 : "memory");
}
// The same slab into the same offset of every block in `mask`, completing on each one's `b`.
__device__ __forceinline__ void tma_load_multicast(unsigned dst, const ktune_tmap* map, int x,
                                                   int y, unsigned b, unsigned short mask) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(dst),
                 "l"((unsigned long long)map), "r"(x), "r"(y), "r"(b), "h"(mask)
                 : "memory");
}
// A 64 x 64 box of shared memory (128-byte swizzled, as the map says) to the tensor at (x, y).
__device__ __forceinline__ void tma_store(const ktune_tmap* map, const void* src, int x, int y) {
    asm volatile(
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
            (unsigned long long)map),
        "r"(x), "r"(y), "r"(ktune_smem_u32(src))
        : "memory");
}
// The 128 threads of consumer warpgroup c (barrier 0 is the block's).
__device__ __forceinline__ void consumer_sync(int c) {
    asm volatile("bar.sync %0, 128;" ::"r"(1 + c) : "memory");
}
// A wgmma operand in shared memory: K-major rows of 128 bytes, 128-byte swizzle, 8-row groups
// 1024 bytes apart (the stride byte offset); the leading byte offset is unused by this layout.
// Its low word (the start address >> 4 in bits 0-13, the unused leading byte offset 1 in bits
// 16-29) is all that differs between slabs and wgmma steps, so the consumers' loop adds to it in
// 32 bits (the offset a & 0x3ffff is under 2^18, the most shared memory a block has: no carry
// out of the field; keep the mask, a cluster's address carries the CTA id from bit 24) and pairs
// it with the constant high word (the stride byte offset 1024 >> 4, bit 62: 128-byte swizzle).
__device__ __forceinline__ unsigned desc_lo(unsigned a) {
    return ((a & 0x3ffffu) >> 4) | (1u << 16);
}
__device__ __forceinline__ unsigned long long desc_of(unsigned lo) {
    return ((unsigned long long)((1024u >> 4) | (1u << 30)) << 32) | lo;
}
__device__ __forceinline__ void wgmma_fence() {
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

// wgmma_bn(d, desc_p, desc_q, accumulate): the m64nBN wgmma of the input type on BN / 2 fp32
// accumulators, written by the host for the config's BN and type (sm90.cpp).
KTUNE_WGMMA_WRAPPER

// Where a consumer thread's share of a tile goes: its first row of OUT (the second is 8 rows
// on), whether each row is inside OUT, and the columns left from its first one. Kept this
// small so a pending tile costs few registers beside its packed words.
#ifndef EPI_PARTS
#define EPI_PARTS 0
#endif
#ifndef TMA_STORE
#define TMA_STORE 0
#endif
struct out_at {
    unsigned short* row;
    long long next; // elements to the second row: 8 C
    int cols_left;
    bool in0, in1;
};
// A consumer thread's bias words of one tile, read when the tile starts so that their latency
// hides under its main loop (BN / 8 registers; the deferred and split-K epilogues, short of
// registers (ptxas -v: split-K at bn 224 spilled), read them in the epilogue instead).
#if EPILOGUE > 0 && EPI_PARTS == 0 && !SPLIT_K && !SWAP_AB
#define BIAS_AHEAD 1
#else
#define BIAS_AHEAD 0
#endif
// Part q of a packed tile (8-column blocks j with j * EPI_PARTS / (BN / 8) == q; q = -1: all
// of it) to OUT. Word 2 j + h: row h, columns 8 j, 8 j + 1 from the thread's first; pairs that
// end past C (or any pair where C is odd: 4-byte stores need an even row length) go element
// by element.
__device__ __forceinline__ void store_part(const unsigned (&pend)[BN / 4], const out_at& o, int q,
                                           int C) {
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
        if (q >= 0 && j * (EPI_PARTS > 0 ? EPI_PARTS : 1) / (BN / 8) != q) continue;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            if (!(h ? o.in1 : o.in0)) continue;
            unsigned short* p = o.row + (h ? o.next : 0) + 8 * j;
            const unsigned packed = pend[2 * j + h];
            if ((C & 1) == 0 && 8 * j + 1 < o.cols_left) {
                *reinterpret_cast<unsigned*>(p) = packed;
            } else {
                if (8 * j < o.cols_left) p[0] = (unsigned short)(packed & 0xffffu);
                if (8 * j + 1 < o.cols_left) p[1] = (unsigned short)(packed >> 16);
            }
        }
    }
}

// A consumer warpgroup gives a ring slot back: one arrival on the slot's barrier in every block
// of the cluster (thread t arrives in block t).
__device__ __forceinline__ void release(unsigned b, int t) {
#if CLUSTER > 1
    if (t < CLUSTER) bar_arrive_in(b, (unsigned)t);
#else
    if (t == 0) bar_arrive(b);
#endif
}

// Tile t's (row tile, column tile) in the grouped raster order.
__device__ __forceinline__ void tile_coords(int t, int row_tiles, int col_tiles, int group, int& tr,
                                            int& tc) {
    const int per_group = group * col_tiles;
    const int first = (t / per_group) * group;
    const int size = row_tiles - first < group ? row_tiles - first : group;
    tr = first + (t % per_group) % size;
    tc = (t % per_group) / size;
}

// The tile a block of cluster rank `rank` takes in unit `unit` of a grid of unit_rows x
// unit_cols units: CLUSTER neighbouring row tiles of one column tile, or with CLUSTER_B,
// CLUSTER neighbouring column tiles of one row tile.
__device__ __forceinline__ void unit_tile(int unit, int unit_rows, int unit_cols, int group,
                                          unsigned rank, int& tr, int& tc) {
    int ur, uc;
    tile_coords(unit, unit_rows, unit_cols, group, ur, uc);
    tr = CLUSTER_B ? ur : ur * CLUSTER + (int)rank;
    tc = CLUSTER_B ? uc * CLUSTER + (int)rank : uc;
}

// Slab `kb` of an operand whose tiles have ROWS rows (P: BM, Q: BN), the rows of tile `tile`,
// into `slot` of the ring, completing on `bar`; where the cluster SHARED it, the block loads its
// 1 / CLUSTER of the slab and the TMA multicasts it to every block of the cluster.
template <int ROWS, bool SHARED>
__device__ __forceinline__ void load_slab(unsigned slot, const ktune_tmap* map, int kb, int tile,
                                          unsigned rank, unsigned bar) {
    if (SHARED && CLUSTER > 1)
        tma_load_multicast(slot + rank * (ROWS * 128 / CLUSTER), map, kb * BK,
                           tile * ROWS + (int)rank * (ROWS / CLUSTER), bar,
                           (unsigned short)((1u << CLUSTER) - 1));
    else
        tma_load(slot, map, kb * BK, tile * ROWS, bar);
}

#if SPLIT_K
// An atomic add at GPU scope with acquire and release semantics; returns the old value.
__device__ __forceinline__ int atom_add_acq_rel(int* at, int v) {
    int old;
    asm volatile("atom.acq_rel.gpu.global.add.s32 %0, [%1], %2;"
                 : "=r"(old)
                 : "l"(at), "r"(v)
                 : "memory");
    return old;
}
// Split-K: consumer warpgroup c's fp32 partial of (tile, slice) into the workspace (float4 i of
// thread t at i * 128 + t: each store instruction writes 2 KiB contiguously), then one arrival on
// the (tile, c) counter. The slice that arrives last adds every slice's partial in slice order
// into d and returns true (and sets the counter back to 0); the others return false.
__device__ __forceinline__ bool last_slice(float (&d)[BN / 2], float* partials, int* arrivals,
                                           int tile, int c, int slice, int splits, int t,
                                           int* arrived) {
    const int at = tile * CONSUMERS + c;
    float4* part = reinterpret_cast<float4*>(partials) + (long long)at * splits * (16 * BN);
#pragma unroll
    for (int i = 0; i < BN / 8; ++i)
        __stcg(part + slice * (16 * BN) + i * 128 + t,
               make_float4(d[4 * i], d[4 * i + 1], d[4 * i + 2], d[4 * i + 3]));
    // The warpgroup's barrier orders every thread's partial before thread 0's arrival, whose
    // release (cumulative over what the barrier ordered) publishes them GPU-wide; its acquire
    // makes the other slices' partials visible to the last, and the barrier after it to every
    // thread of it. No sequentially consistent fence (`__threadfence`), which waits for the
    // SM's outstanding memory traffic: docs/perf/gemm.md#split-k-fixup.
    consumer_sync(c);
    if (t == 0) arrived[c] = atom_add_acq_rel(arrivals + at, 1);
    consumer_sync(c);
    const bool last = arrived[c] == splits - 1;
    consumer_sync(c); // every thread has read arrived[c] before the next tile's arrival
    if (!last) return false;
#pragma unroll
    for (int i = 0; i < BN / 8; ++i) {
        float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        for (int s = 0; s < splits; ++s) {
            const float4 v = s == slice
                                 ? make_float4(d[4 * i], d[4 * i + 1], d[4 * i + 2], d[4 * i + 3])
                                 : __ldcg(part + s * (16 * BN) + i * 128 + t);
            sum.x += v.x;
            sum.y += v.y;
            sum.z += v.z;
            sum.w += v.w;
        }
        d[4 * i] = sum.x;
        d[4 * i + 1] = sum.y;
        d[4 * i + 2] = sum.z;
        d[4 * i + 3] = sum.w;
    }
    if (t == 0) arrivals[at] = 0;
    return true;
}
#endif

extern "C" __global__ void __launch_bounds__(THREADS, 1)
    ktune_sm90_gemm(const __grid_constant__ ktune_tmap map_p,
                    const __grid_constant__ ktune_tmap map_q,
                    const __grid_constant__ ktune_tmap map_out, unsigned short* __restrict__ out,
                    int R, int C, int K, int group, float alpha, int splits,
                    float* __restrict__ partials, int* __restrict__ arrivals,
                    const unsigned short* __restrict__ bias, int b_early) {
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    const int slices = SPLIT_K ? splits : 1; // a constant where split-K is not compiled in
    // The ring's slabs need 1024-byte alignment (the swizzle atom): align the base by hand. The
    // offset is the same in every block of a cluster (same kernel, same dynamic size), which
    // the multicast relies on.
    unsigned char* smem = reinterpret_cast<unsigned char*>(
        (reinterpret_cast<unsigned long long>(smem_raw) + 1023) & ~1023ull);
    constexpr int P_BYTES = BM * 128, Q_BYTES = BN * 128; // a slab's rows are 128 bytes
    unsigned char* slab_p = smem;
    unsigned char* slab_q = smem + STAGES * P_BYTES;
    unsigned long long* full =
        reinterpret_cast<unsigned long long*>(smem + STAGES * (P_BYTES + Q_BYTES));
    unsigned long long* empty = full + STAGES;
#if TMA_STORE
    // Each consumer's staging area, BN / 64 swizzled boxes of 64 x 64 (1024-aligned).
    unsigned char* staging = smem + ((STAGES * (P_BYTES + Q_BYTES) + 16 * STAGES + 1023) & ~1023);
#endif

    // The warpgroup index broadcast from lane 0: ptxas then knows it is the same across the warp,
    // so the role branches below are warp-uniform and the consumers' loop keeps its counters and
    // descriptors in uniform registers (docs/perf/gemm.md#lean-consumer).
    const int wg = __shfl_sync(0xffffffffu, (int)threadIdx.x / 128, 0), t = threadIdx.x % 128;
    const int warp = __shfl_sync(0xffffffffu, t / 32, 0);
#if CLUSTER > 1
    const unsigned rank = cluster_rank();
#else
    const unsigned rank = 0;
#endif
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            bar_init(&full[s], 1);
            bar_init(&empty[s], CONSUMERS * CLUSTER); // every block's consumers release a slot
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
#if CLUSTER > 1
    cluster_sync(); // the peers' barriers exist before any multicast or remote arrival
#else
    __syncthreads();
#endif
    // A cluster takes CLUSTER neighbouring row tiles of one column tile (with CLUSTER_B,
    // neighbouring column tiles of one row tile): "units" of tiles.
    const int row_tiles = (R + BM - 1) / BM, col_tiles = (C + BN - 1) / BN;
    const int unit_rows = CLUSTER_B ? row_tiles : (row_tiles + CLUSTER - 1) / CLUSTER;
    const int unit_cols = CLUSTER_B ? (col_tiles + CLUSTER - 1) / CLUSTER : col_tiles;
    const int units = unit_rows * unit_cols * slices, kb_count = (K + BK - 1) / BK;
    const int first_unit = blockIdx.x / CLUSTER, unit_step = gridDim.x / CLUSTER;

    // Programmatic dependent launch (docs/perf/gemm.md#hopper-split-k): the host lets this grid
    // start while the kernel before it in the stream finishes, so the set-up above overlaps that
    // kernel's tail; nothing in global memory is touched before it has finished (and its writes
    // are visible), except P (= B) where the caller says that kernel does not write it (b_early:
    // weights; docs/perf/gemm.md#early-weights): the producer requests its first ring of P slabs
    // first, so they stream in while that kernel ends. Every thread waits before its first
    // global access; the producer says when the next kernel may start (below).
    if (wg == 0) {
#if CONSUMERS > 1
        asm volatile("setmaxnreg.dec.sync.aligned.u32 24;");
#endif
        if (warp == 0) {
            // The producer is warp 0 as a whole (warp-uniform: its counters and addresses stay
            // in uniform registers); one elected lane issues the copies.
            const bool leader = elect_one();
            const unsigned full_at = ktune_smem_u32(full), empty_at = ktune_smem_u32(empty);
            const unsigned ring_p = ktune_smem_u32(slab_p), ring_q = ktune_smem_u32(slab_q);
            // Swapped, P's box is the tokens' rows rounded up to 8 (the host's map), not BM: the
            // rows past it keep whatever the slot held and their sums are never stored, where
            // a box past the tensor's end made the TMA fill them with zeros, 1.4-1.6x slower at
            // 8-32 tokens (docs/perf/gemm.md#swap-ab).
            const unsigned slab_tx =
                (SWAP_AB ? (R < BM ? (R + 7) / 8 * 8 : BM) * 128 : P_BYTES) + Q_BYTES;
            if (leader) {
                asm volatile("prefetch.tensormap [%0];" ::"l"((unsigned long long)&map_p)
                             : "memory");
                asm volatile("prefetch.tensormap [%0];" ::"l"((unsigned long long)&map_q)
                             : "memory");
            }
            // The first unit's first slabs, in the order the loop below takes them (slot n).
            int early = 0;
            if (b_early && first_unit < units) {
                int tr, tc;
                unit_tile(first_unit / slices, unit_rows, unit_cols, group, rank, tr, tc);
                const int slice = first_unit % slices;
                const int kb0 = slice * kb_count / slices;
                early = min(STAGES, (slice + 1) * kb_count / slices - kb0);
                if (leader)
                    for (int n = 0; n < early; ++n) {
                        bar_expect(full_at + 8 * n, slab_tx);
                        if (SWAP_AB) // the weights are Q
                            load_slab<BN, true>(ring_q + n * Q_BYTES, &map_q, kb0 + n, tc, rank,
                                                full_at + 8 * n);
                        else
                            load_slab<BM, CLUSTER_B>(ring_p + n * P_BYTES, &map_p, kb0 + n, tr,
                                                     rank, full_at + 8 * n);
                    }
            }
            asm volatile("griddepcontrol.wait;" ::: "memory");
            // When the next kernel may start (one invocation a block counts): at once, so that
            // its blocks are launched and set up on SMs this grid frees while it still runs;
            // but where this block has at most one unit and B is early weights, only once its last
            // slab is requested (below): the next kernel then loads its own weights early, and
            // started at once on the SMs an under-filled grid leaves idle it competed with this
            // kernel's whole main loop for DRAM (H200: 1.0-1.5 µs slower at 8-64 x 4096 x 4096;
            // docs/perf/gemm.md#launch-dependents).
            const bool launch_late = b_early && first_unit + unit_step >= units;
            if (!launch_late) asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
            int s = 0, issued = 0;
            unsigned phase = 0;
            for (int unit = first_unit; unit < units; unit += unit_step) {
                int tr, tc;
                unit_tile(unit / slices, unit_rows, unit_cols, group, rank, tr, tc);
                const int slice = unit % slices;
                const int kb_end = (slice + 1) * kb_count / slices;
                for (int kb = slice * kb_count / slices; kb < kb_end; ++kb, ++issued) {
                    const unsigned bar = full_at + 8 * s;
                    // A slot whose weights' slab was requested before the wait has its barrier set.
                    if (issued >= early) bar_wait(empty_at + 8 * s, phase ^ 1);
                    if (leader) {
                        // The weights' slab (P, or Q swapped) may have been requested early.
                        if (issued >= early) {
                            bar_expect(bar, slab_tx);
                            if (SWAP_AB)
                                load_slab<BN, true>(ring_q + s * Q_BYTES, &map_q, kb, tc, rank,
                                                    bar);
                            else
                                load_slab<BM, CLUSTER_B>(ring_p + s * P_BYTES, &map_p, kb, tr, rank,
                                                         bar);
                        }
                        if (SWAP_AB)
                            load_slab<BM, false>(ring_p + s * P_BYTES, &map_p, kb, tr, rank, bar);
                        else
                            load_slab<BN, !CLUSTER_B>(ring_q + s * Q_BYTES, &map_q, kb, tc, rank,
                                                      bar);
                    }
                    if (++s == STAGES) {
                        s = 0;
                        phase ^= 1;
                    }
                }
            }
            if (launch_late) asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
        } else {
            asm volatile("griddepcontrol.wait;" ::: "memory");
        }
    } else {
#if CONSUMERS > 1
        asm volatile("setmaxnreg.inc.sync.aligned.u32 240;");
#endif
        asm volatile("griddepcontrol.wait;" ::: "memory");
        // Consumer warpgroup c owns rows 64 c .. 64 c + 63 of the tile.
        const int c = wg - 1, lane = t % 32;
        // The ring as 32-bit shared addresses: slot s's barriers at + 8 s, its slabs' wgmma
        // descriptors' low words at + s * bytes / 16 (docs/perf/gemm.md#lean-consumer).
        const unsigned full_at = ktune_smem_u32(full), empty_at = ktune_smem_u32(empty);
        const unsigned desc_p = desc_lo(ktune_smem_u32(slab_p) + c * 64 * 128);
        const unsigned desc_q = desc_lo(ktune_smem_u32(slab_q));
        float d[BN / 2];
        // The previous tile's D, packed to bf16 pairs, stored while the tensor cores run this
        // tile's first slabs (EPI_PARTS > 0): part q of it after slab q's wgmmas are issued.
        // Word 2 j + h: row r0 + 8 h, columns c0 + 8 j, + 1 (the accumulator layout below).
        unsigned pend[BN / 4];
#if SPLIT_K
        __shared__ int arrived[CONSUMERS]; // what each consumer's counter read, for its threads
#endif
        out_at pend_at{};
        bool pending = false;
        int s = 0;
        unsigned phase = 0;
        for (int unit = first_unit; unit < units; unit += unit_step) {
            int tr, tc;
            unit_tile(unit / slices, unit_rows, unit_cols, group, rank, tr, tc);
            const int slice = unit % slices;
#if BIAS_AHEAD
            unsigned bias_ahead[BN / 8];
#pragma unroll
            for (int j = 0; j < BN / 8; ++j)
                bias_ahead[j] = bias_word(bias, tc * BN + 8 * j + 2 * (lane % 4), C);
#endif
            const int kb_begin = slice * kb_count / slices,
                      kb_end = (slice + 1) * kb_count / slices;
            int prev = 0;
            for (int kb = kb_begin; kb < kb_end; ++kb) {
                bar_wait(full_at + 8 * s, phase);
                const unsigned dp = desc_p + s * (P_BYTES / 16), dq = desc_q + s * (Q_BYTES / 16);
                wgmma_fence();
                if (KTUNE_FAULT == 1 && kb == kb_end - 1) {
                    if (kb == kb_begin) // a unit of one slab: its sum left at zero
#pragma unroll
                        for (int i = 0; i < BN / 2; ++i)
                            d[i] = 0.0f;
                } else {
#pragma unroll
                    for (int kk = 0; kk < 4; ++kk) // 32 bytes of K a step: 2 in the address
                        wgmma_bn(d, desc_of(dp + 2 * kk), desc_of(dq + 2 * kk),
                                 kb > kb_begin || kk > 0);
                }
                wgmma_commit();
#if EPI_PARTS > 0
                if (kb < EPI_PARTS && pending) store_part(pend, pend_at, kb, C);
#endif
                // The previous slab's wgmmas have retired once at most this one is in flight.
                if (kb > kb_begin) {
                    wgmma_wait<1>();
                    release(empty_at + 8 * prev, t);
                }
                prev = s;
                if (++s == STAGES) {
                    s = 0;
                    phase ^= 1;
                }
            }
            wgmma_wait<0>();
#if SPLIT_K
            if (kb_end > kb_begin) {
                release(empty_at + 8 * prev, t);
            } else { // a slice of no slabs adds nothing
#pragma unroll
                for (int i = 0; i < BN / 2; ++i)
                    d[i] = 0.0f;
            }
            if (!last_slice(d, partials, arrivals, tr * col_tiles + tc, c, slice, slices, t,
                            arrived))
                continue; // another slice of this tile finishes it
#else
            if (kb_end > kb_begin) release(empty_at + 8 * prev, t);
#endif
            if (KTUNE_FAULT == 2 && tr == row_tiles - 1 && tc == col_tiles - 1) continue;
#if SWAP_AB
            {
                // Swapped, the tile's rows are D's rows (the tokens, P = A) and its columns D's
                // columns (B's rows), so OUT (N x M row-major) takes element (r, col) at col * R
                // + r: a store instruction writes a column's 8 neighbouring rows, 16 bytes in a
                // row of OUT. The bias is one value a row of D: row r's.
                const int r0 = tr * BM + c * 64 + warp * 16 + lane / 4;
                const int c0 = tc * BN + 2 * (lane % 4);
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const int r = r0 + 8 * h;
                    if (r >= R) continue;
#if EPILOGUE > 0
                    const float b = out_to_float(__ldg(bias + r));
#else
                    const float b = 0.0f;
#endif
#pragma unroll
                    for (int j = 0; j < BN / 8; ++j) {
                        const int col = c0 + 8 * j;
                        const unsigned packed = epi_pack(d[4 * j + 2 * h], d[4 * j + 2 * h + 1],
                                                         alpha, make_float2(b, b));
                        if (col < C)
                            out[(long long)col * R + r] = (unsigned short)(packed & 0xffffu);
                        if (col + 1 < C)
                            out[(long long)(col + 1) * R + r] = (unsigned short)(packed >> 16);
                    }
                }
            }
            continue;
#endif
#if TMA_STORE
            {
                // Rows 16 warp + lane / 4 (+ 8) and columns 8 j + 2 (lane % 4) of this consumer's
                // 64 x BN part, into box col / 64 at its swizzled 16-byte chunk: the 8 rows a
                // store instruction covers land in 8 distinct chunks (no bank conflict).
                unsigned char* st = staging + c * (64 * BN * 2);
                if (t == 0) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
                consumer_sync(c); // the previous tile's store has read the staging area
#pragma unroll
                for (int j = 0; j < BN / 8; ++j) {
#if BIAS_AHEAD
                    const float2 bj = out_pair(bias_ahead[j]);
#else
                    const float2 bj = make_float2(0.0f, 0.0f); // no epilogue
#endif
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        const int row = warp * 16 + lane / 4 + 8 * h, col = 8 * j + 2 * (lane % 4);
                        const int cc = col % 64;
                        const unsigned packed =
                            epi_pack(d[4 * j + 2 * h], d[4 * j + 2 * h + 1], alpha, bj);
                        *reinterpret_cast<unsigned*>(st + (col / 64) * 8192 + row * 128 +
                                                     (((cc / 8) ^ (row % 8)) * 16) + (cc % 8) * 2) =
                            packed;
                    }
                }
                asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
                consumer_sync(c);
                if (t == 0) {
                    for (int b = 0; b < BN / 64; ++b)
                        tma_store(&map_out, st + b * 8192, tc * BN + b * 64, tr * BM + c * 64);
                    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
                }
            }
            continue;
#endif
#if EPI_PARTS > 0
            // Parts a K of fewer slabs than parts left behind.
            if (pending)
                for (int q = kb_count; q < EPI_PARTS; ++q)
                    store_part(pend, pend_at, q, C);
#endif
            // Accumulator layout of wgmma m64nBN: warp w holds rows 16 w + lane / 4 (and + 8),
            // columns 8 j + 2 (lane % 4) + {0, 1} in d[4 j .. 4 j + 3].
            const int r0 = tr * BM + c * 64 + warp * 16 + lane / 4;
            const int c0 = tc * BN + 2 * (lane % 4);
            pend_at.row = out + (long long)r0 * C + c0;
            pend_at.next = 8ll * C;
            pend_at.cols_left = C - c0;
            pend_at.in0 = r0 < R;
            pend_at.in1 = r0 + 8 < R;
            pending = true;
#pragma unroll
            for (int j = 0; j < BN / 8; ++j) {
#if BIAS_AHEAD
                const float2 bj = out_pair(bias_ahead[j]);
#else
                const float2 bj = out_pair(bias_word(bias, c0 + 8 * j, C));
#endif
#pragma unroll
                for (int h = 0; h < 2; ++h)
                    pend[2 * j + h] = epi_pack(d[4 * j + 2 * h], d[4 * j + 2 * h + 1], alpha, bj);
            }
#if EPI_PARTS == 0
            store_part(pend, pend_at, -1, C);
            pending = false;
#endif
        }
        if (pending) store_part(pend, pend_at, -1, C);
#if TMA_STORE
        if (t == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#endif
    }
#if CLUSTER > 1
    // No block leaves while a peer may still multicast into its ring or arrive on its barriers.
    cluster_sync();
#endif
}
