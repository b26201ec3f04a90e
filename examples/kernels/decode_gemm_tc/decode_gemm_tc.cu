// Tensor-core decode GEMM D = X * W^T (X: M x K bf16 activations, W: N x K row-major weights,
// bf16 or fp8 e4m3 with a per-tensor scale; D: M x N bf16, fp32 accumulation), the kernels of
// decode_gemm_tc.json and decode_gemm_tc_fp8.json (docs/perf/kernel.md#tensor-core-decode-gemm).
//
// Decode (M <= 64) is bound by reading W once, so the kernel is shaped around that stream:
// - swap-AB: 16 rows of W are the A operand (16 x 16) of mma.sync.m16n8k16 and 8 rows of X the
//   B operand (16 x 8), so M <= 8 wastes nothing on the W side and M <= 64 takes MTILE / 8
//   n-tiles per block;
// - W goes from global memory straight into registers, one 16-byte ld.global.nc per lane and
//   row, no shared-memory stage: lane (g, t) of a warp (g = lane / 4, t = lane % 4) loads the
//   EPV elements at k0 + EPV * t of rows g and g + 8. A dot product does not care which k goes
//   to which fragment slot as long as A and B agree, so the lane's 8 contiguous bf16 (16 fp8)
//   are dealt into the A fragment of 2 (4) mmas, and the lane reads the same k of X for B:
//   no shuffles, no bank conflicts, every byte of a 16-byte load used;
// - UNROLL chunks of ROWS rows are loaded before any is used (loads in flight), KSPLIT warps of
//   a block split K (round-robin over groups of UNROLL chunks, so a block streams each row
//   front to back) and are reduced through shared memory; WARPS_N warps of a block take
//   neighbouring rows on the same chunks, so X is read from L2 once per block, not per warp
//   (the L1 serves the others; W bypasses L1); SPLITK blocks split K further and
//   add their partial sums into an fp32 workspace with atomics, the last block of a tile (a
//   ticket counter) writing D and putting the workspace and its counter back to zero, so the
//   next launch finds them zeroed (the spec's WS and CNT buffers start as zeros);
// - XSTAGE 1 (for M >= 16, where X is no longer small beside W): the block's X tile for the
//   next round of K chunks goes to shared memory once per block with cp.async (double
//   buffered, one barrier a round), so every warp of the block reads its B fragments there:
//   X crosses L2 -> SM once per block, whatever the number of warps, and a block of many W
//   rows (WARPS_N * ROWS) divides the X side of the traffic by its width.
// bf16 as raw 16-bit words (no cuda_bf16.h: NVRTC parses no header).

__device__ __forceinline__ unsigned short to_bf16(float f) {
    unsigned short h;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}

// W is read once: no L1 allocation; the L2 fetches whole 256-byte runs of the row, the rest of
// which the same block reads next.
__device__ __forceinline__ uint4 load_stream(const uint4* p) {
    uint4 v;
    asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
        : "l"(p));
    return v;
}

// X into shared memory, 16 bytes, zero-filled where `valid` is false (nothing is read then).
__device__ __forceinline__ void stage16(uint4* dst, const uint4* src, bool valid) {
    unsigned addr;
    asm("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }" : "=r"(addr) : "l"(dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(addr), "l"(src),
                 "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void stage_commit() {
    asm volatile("cp.async.commit_group;");
}
__device__ __forceinline__ void stage_wait() {
    asm volatile("cp.async.wait_all;" ::: "memory");
}

__device__ __forceinline__ void mma_bf16(float (&c)[4], unsigned a0, unsigned a1, unsigned a2,
                                         unsigned a3, unsigned b0, unsigned b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// Two fp8 e4m3 codes, each in the high byte of a 16-bit half of `spread`, as a bf16x2 word,
// exactly: the sign stays at bit 15, exponent and mantissa go under bf16's (a value 2^-120 times
// the code's, subnormal codes as bf16 subnormals), then one bf16x2 FMA by 2^120 (0x7b80).
__device__ __forceinline__ unsigned e4m3x2_to_bf16x2(unsigned spread) {
    const unsigned bits = (spread & 0x80008000u) | ((spread >> 4) & 0x07f007f0u);
    unsigned out;
    asm("fma.rn.bf16x2 %0, %1, %2, %3;"
        : "=r"(out)
        : "r"(bits), "r"(0x7b807b80u), "r"(0x80008000u));
    return out;
}

// The weight element types: elements per 16-byte vector and the vector as bf16x2 words.
struct bf16_weights {
    static constexpr int per_vector = 8;
    __device__ __forceinline__ static void expand(const uint4& v, unsigned (&w)[4]) {
        w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
    }
};
struct e4m3_weights {
    static constexpr int per_vector = 16;
    __device__ __forceinline__ static void expand(const uint4& v, unsigned (&w)[8]) {
        const unsigned in[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            // Codes b0 b1 b2 b3 -> words {b0, b1} and {b2, b3}, each code in its half's high byte.
            w[2 * i] = e4m3x2_to_bf16x2(__byte_perm(in[i], 0, 0x1404));
            w[2 * i + 1] = e4m3x2_to_bf16x2(__byte_perm(in[i], 0, 0x3424));
        }
    }
};

template <class WT, int KSPLIT, int WARPS_N, int ROWS, int UNROLL, int MTILE, int SPLITK,
          int XSTAGE>
__device__ __forceinline__ void decode_tc(const uint4* __restrict__ X, const uint4* __restrict__ W,
                                          float scale, unsigned short* __restrict__ D,
                                          float* __restrict__ WS, int* __restrict__ CNT, int M,
                                          int N, int K) {
    constexpr int TILES = ROWS / 16, NT = MTILE / 8;
    constexpr int EPV = WT::per_vector; // W elements per 16-byte vector
    constexpr int WORDS = EPV / 2;      // bf16x2 words per expanded vector
    constexpr int XV = EPV / 8;         // X vectors (8 bf16) per lane per chunk
    constexpr int MMAS = EPV / 4;       // mmas per tile and n-tile per chunk
    constexpr int R = TILES * NT * 4;   // accumulators per lane
    constexpr int KU = KSPLIT * UNROLL; // chunks per round of the block
    constexpr int THREADS = 32 * KSPLIT * WARPS_N;
    // The X stage (XSTAGE 1): MTILE rows of UR 16-byte units (a round's K), row stride RU units,
    // padded so that the 8 lanes of a quarter warp (rows g, g + 1 at t = 0..3) hit 8 distinct
    // 16-byte bank groups: bf16 (XV 1) a row's 4 units are contiguous, so the next row starts 4
    // units (64 bytes) further modulo 128 bytes; fp8 (XV 2) takes every other unit, so the next
    // row starts an odd number of units further. Two buffers: one read, the next round landing.
    constexpr int UR = KU * 4 * XV;
    constexpr int RU = XV == 1 ? UR + (UR % 8 == 0 ? 4 : 0) : UR + 1;
    constexpr int STAGE = MTILE * RU;
    static_assert(ROWS % 16 == 0 && MTILE % 8 == 0, "whole mma tiles");
    // XSTAGE: [2][STAGE] uint4 during the loop; then (KSPLIT > 1) the partial sums
    // [KSPLIT][WARPS_N][R][32] floats over the same bytes.
    extern __shared__ uint4 smem[];
    float* partial = reinterpret_cast<float*>(smem);

    // Warps (wn, ks): WARPS_N side by side along N on the same K chunks at the same pace, so
    // all but the first find X's vectors in L1 (or, XSTAGE, all in shared memory); KSPLIT of
    // them along K.
    const int lane = threadIdx.x % 32, wn = threadIdx.x / 32 % WARPS_N;
    const int ks = threadIdx.x / 32 / WARPS_N;
    const int g = lane / 4, t = lane % 4;
    // x: the M tiles, fastest, so the blocks reading the same rows of W run together and all
    // but the first find them in L2; y: WARPS_N * ROWS rows of W; z: the block's share of K.
    const int m0 = blockIdx.x * MTILE, n_block = blockIdx.y * WARPS_N * ROWS;
    const int n0 = n_block + wn * ROWS;
    const int kv_row = K / EPV;          // 16-byte vectors per W row (K % EPV == 0)
    const int chunks = (kv_row + 3) / 4; // a chunk: 4 vectors of each row, one per lane t
    const int per_split = (chunks + SPLITK - 1) / SPLITK;
    const int c_begin = blockIdx.z * per_split;
    const int c_end = min(chunks, c_begin + per_split);

    float acc[TILES][NT][4];
#pragma unroll
    for (int i = 0; i < TILES; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
            for (int q = 0; q < 4; ++q)
                acc[i][j][q] = 0.0f;

    // Every load of a round issued before any is used.
    const auto load_w = [&](int c0, uint4(&w)[UNROLL][TILES][2]) {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
#pragma unroll
            for (int i = 0; i < TILES; ++i)
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const int row = n0 + i * 16 + h * 8 + g, v = (c0 + u) * 4 + t;
                    w[u][i][h] = c0 + u < c_end && v < kv_row && row < N
                                     ? load_stream(W + (long long)row * kv_row + v)
                                     : make_uint4(0, 0, 0, 0);
                }
    };
    // The mmas of chunks c0 .. c0 + UNROLL - 1; x_at(j, u, x, v): the X vector x of row
    // m0 + j * 8 + g at this lane's W vector v of chunk c0 + u.
    const auto use = [&](int c0, const uint4(&w)[UNROLL][TILES][2], auto x_at) {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
            if (c0 + u >= c_end) break; // uniform over the warp
            const int v = (c0 + u) * 4 + t;
            // X rows m, the same k as this lane's W vectors: B's 2 registers per mma.
            unsigned b[NT][4 * XV];
#pragma unroll
            for (int j = 0; j < NT; ++j)
#pragma unroll
                for (int x = 0; x < XV; ++x) {
                    const uint4 xv = x_at(j, u, x, v);
                    b[j][4 * x] = xv.x, b[j][4 * x + 1] = xv.y;
                    b[j][4 * x + 2] = xv.z, b[j][4 * x + 3] = xv.w;
                }
                // One tile's W expanded at a time (fp8: 16 words per row), used by every n-tile.
#pragma unroll
            for (int i = 0; i < TILES; ++i) {
                unsigned lo[WORDS], hi[WORDS]; // rows g and g + 8
                WT::expand(w[u][i][0], lo);
                WT::expand(w[u][i][1], hi);
#pragma unroll
                for (int j = 0; j < NT; ++j)
#pragma unroll
                    for (int s = 0; s < MMAS; ++s)
                        mma_bf16(acc[i][j], lo[2 * s], hi[2 * s], lo[2 * s + 1], hi[2 * s + 1],
                                 b[j][2 * s], b[j][2 * s + 1]);
            }
        }
    };

    if (XSTAGE == 0) {
        for (int c0 = c_begin + ks * UNROLL; c0 < c_end; c0 += KU) {
            uint4 w[UNROLL][TILES][2];
            load_w(c0, w);
            use(c0, w, [&](int j, int, int x, int v) {
                const int m = m0 + j * 8 + g;
                return m < M && v < kv_row
                           ? __ldg(X + ((long long)m * K + (long long)v * EPV) / 8 + x)
                           : make_uint4(0, 0, 0, 0);
            });
        }
    } else {
        // Round r0 (chunks r0 .. r0 + KU - 1, warp ks taking UNROLL of them as above): the
        // whole block stages X of rounds r0 into buffer (r0 - c_begin) / KU % 2, zero past M,
        // past K and past the block's share, so padding multiplies zero weights by zeros.
        const auto stage = [&](int r0, uint4* buf) {
            for (int e = threadIdx.x; e < MTILE * UR; e += THREADS) {
                const int mm = e / UR, cu = e % UR;
                const int m = m0 + mm, unit = r0 * 4 * XV + cu; // 16-byte unit of X's row
                const bool ok = m < M && r0 + cu / (4 * XV) < c_end && unit < K / 8;
                stage16(buf + mm * RU + cu, ok ? X + (long long)m * (K / 8) + unit : X, ok);
            }
            stage_commit();
        };
        if (c_begin < c_end) stage(c_begin, smem);
        int buf = 0;
        for (int r0 = c_begin; r0 < c_end; r0 += KU, buf ^= 1) {
            const int c0 = r0 + ks * UNROLL;
            uint4 w[UNROLL][TILES][2];
            load_w(c0, w); // in flight while the barrier waits
            stage_wait();
            // Round r0's X has landed for the whole block, and every warp is done with the
            // other buffer (round r0 - KU): the next round may land there.
            __syncthreads();
            if (r0 + KU < c_end) stage(r0 + KU, smem + (buf ^ 1) * STAGE);
            const uint4* xs = smem + buf * STAGE + g * RU + t * XV;
            use(c0, w, [&](int j, int u, int x, int) {
                return xs[j * 8 * RU + (c0 + u - r0) * 4 * XV + x];
            });
        }
    }

    // One output: its fp32 sum times the scale, to D or (split over blocks) into the workspace.
    const auto emit = [&](int r, int src_lane, float sum) {
        const int q = r % 4, j = (r / 4) % NT, i = r / (4 * NT);
        const int gg = src_lane / 4, tt = src_lane % 4;
        const int n = i * 16 + (q / 2) * 8 + gg, m = m0 + j * 8 + 2 * tt + q % 2;
        const int nn = n0 + n;
        if (m >= M || nn >= N) return;
        if (SPLITK == 1)
            D[(long long)m * N + nn] = to_bf16(sum * scale);
        else
            atomicAdd(WS + (long long)m * N + nn, sum * scale);
    };
    if (KSPLIT == 1) {
#pragma unroll
        for (int i = 0; i < TILES; ++i)
#pragma unroll
            for (int j = 0; j < NT; ++j)
#pragma unroll
                for (int q = 0; q < 4; ++q)
                    emit((i * NT + j) * 4 + q, lane, acc[i][j][q]);
    } else {
        // Fragments to shared memory as [warp][register][lane] (conflict-free), then every
        // thread of the block sums KSPLIT of them: the reduction spread over all warps. With
        // XSTAGE they overwrite the X stage, which every warp must be done reading first.
        if (XSTAGE) __syncthreads();
        float* mine = partial + (ks * WARPS_N + wn) * R * 32;
#pragma unroll
        for (int i = 0; i < TILES; ++i)
#pragma unroll
            for (int j = 0; j < NT; ++j)
#pragma unroll
                for (int q = 0; q < 4; ++q)
                    mine[((i * NT + j) * 4 + q) * 32 + lane] = acc[i][j][q];
        __syncthreads();
        for (int e = ks * 32 + lane; e < R * 32; e += KSPLIT * 32) {
            float sum = 0.0f;
#pragma unroll
            for (int s = 0; s < KSPLIT; ++s)
                sum += partial[(s * WARPS_N + wn) * R * 32 + e];
            emit(e / 32, e % 32, sum);
        }
    }
    if (SPLITK > 1) {
        // The last block of this tile to arrive (a ticket) writes D and zeroes what it read.
        __shared__ int last;
        __threadfence();
        __syncthreads();
        const int tile = blockIdx.y * gridDim.x + blockIdx.x;
        if (threadIdx.x == 0) last = atomicAdd(CNT + tile, 1) == SPLITK - 1;
        __syncthreads();
        if (!last) return;
        __threadfence();
        constexpr int WIDTH = WARPS_N * ROWS;
        for (int e = threadIdx.x; e < WIDTH * MTILE; e += blockDim.x) {
            const int m = m0 + e / WIDTH, n = n_block + e % WIDTH;
            if (m >= M || n >= N) continue;
            float* p = WS + (long long)m * N + n;
            D[(long long)m * N + n] = to_bf16(__ldcg(p));
            __stcg(p, 0.0f);
        }
        if (threadIdx.x == 0) CNT[tile] = 0;
    }
}

// bf16 weights: WS (M x N fp32) and CNT (one int per output tile) zero before the first
// launch; the kernel leaves them so. Only SPLITK > 1 touches them.
template <int KSPLIT, int WARPS_N, int ROWS, int UNROLL, int MTILE, int SPLITK, int XSTAGE>
__global__ void __launch_bounds__(32 * KSPLIT * WARPS_N)
    decode_gemm_tc(const uint4* __restrict__ X, const uint4* __restrict__ W,
                   unsigned short* __restrict__ D, float* __restrict__ WS, int* __restrict__ CNT,
                   int M, int N, int K) {
    decode_tc<bf16_weights, KSPLIT, WARPS_N, ROWS, UNROLL, MTILE, SPLITK, XSTAGE>(X, W, 1.0f, D, WS,
                                                                                  CNT, M, N, K);
}

// fp8 e4m3 weights with one fp32 scale for the whole tensor: D = scale * (X * W^T).
template <int KSPLIT, int WARPS_N, int ROWS, int UNROLL, int MTILE, int SPLITK, int XSTAGE>
__global__ void __launch_bounds__(32 * KSPLIT * WARPS_N)
    decode_gemm_tc_fp8(const uint4* __restrict__ X, const uint4* __restrict__ W,
                       const float* __restrict__ scale, unsigned short* __restrict__ D,
                       float* __restrict__ WS, int* __restrict__ CNT, int M, int N, int K) {
    decode_tc<e4m3_weights, KSPLIT, WARPS_N, ROWS, UNROLL, MTILE, SPLITK, XSTAGE>(X, W, *scale, D,
                                                                                  WS, CNT, M, N, K);
}

// The references: one thread per output, fp32 accumulation in K order (slow, obviously right).
__device__ __forceinline__ float element_value(unsigned short h) {
    return __uint_as_float((unsigned)h << 16);
}
__device__ __forceinline__ float element_value(unsigned char c) {
    const int e = (c >> 3) & 15, man = c & 7;
    const float mag = e == 0 ? ldexpf((float)man, -9) : ldexpf(1.0f + man / 8.0f, e - 7);
    return c & 0x80 ? -mag : mag;
}

// One output D[m][n] of either reference: the weights' element type T picks their decoding.
template <typename T>
__device__ void reference_output(const uint4* X, const uint4* W, float scale, unsigned short* D,
                                 int M, int N, int K) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (long long)M * N) return;
    const int m = (int)(i / N), n = (int)(i % N);
    const unsigned short* x = reinterpret_cast<const unsigned short*>(X) + (long long)m * K;
    const T* w = reinterpret_cast<const T*>(W) + (long long)n * K;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc = fmaf(element_value(x[k]), element_value(w[k]), acc);
    D[i] = to_bf16(acc * scale); // * 1.0f for bf16 weights: exact
}

__global__ void decode_gemm_tc_reference(const uint4* __restrict__ X, const uint4* __restrict__ W,
                                         unsigned short* __restrict__ D, float* WS, int* CNT, int M,
                                         int N, int K) {
    reference_output<unsigned short>(X, W, 1.0f, D, M, N, K);
}

__global__ void decode_gemm_tc_fp8_reference(const uint4* __restrict__ X,
                                             const uint4* __restrict__ W,
                                             const float* __restrict__ scale,
                                             unsigned short* __restrict__ D, float* WS, int* CNT,
                                             int M, int N, int K) {
    reference_output<unsigned char>(X, W, *scale, D, M, N, K);
}
