// ktune's GEMM for GPUs without wgmma (docs/perf/gemm.md#mma-fallback): tensor cores through
// mma.sync.m16n8k16 (sm_80 and later), compiled by NVRTC for the device's own arch. The same
// problem frame as the Hopper template: OUT (R x C, row-major) = act(alpha P Q^T + bias) with
// P = B (R = N rows of K) and Q = A (C = M rows of K), both K-major as a "tn" problem is stored;
// gemm_epilogue.cuh (put before this file by the host) packs and biases the pairs.
//
// Shape of the kernel: one block a BM x BN tile of OUT (grid: row tiles x column tiles), WM x WN
// warps, each owning a (BM / WM) x (BN / WN) part of it in m16n8 accumulators; a STAGES-deep ring
// of shared memory fed by cp.async (16 bytes a thread a copy; rows and K past the ends are
// zero-filled by a source size of 0), rows padded by 8 elements so that the 8 rows of an 8 x 8
// matrix that ldmatrix reads (16 bytes each) fall in distinct banks; fragments read by
// ldmatrix.x4 (A: one m16 x k16; B: two n8 x k16).
// Config (defines): BM, BN, BK (32 or 64), WM, WN, STAGES; IN_F16 and EPILOGUE as the epilogue's.
#define THREADS (32 * WM * WN)
#define LD (BK + 8)  // a shared-memory row: BK elements and 16 bytes of padding
#define TM (BM / WM) // a warp's rows of the tile
#define TN (BN / WN) // a warp's columns
#define MI (TM / 16) // m16 fragments a warp
#define NI (TN / 8)  // n8 fragments a warp

__device__ __forceinline__ unsigned mma_smem_u32(const void* p) {
    return (unsigned)__cvta_generic_to_shared(p);
}
// Four 8 x 8 matrices of 2-byte elements: lane l gives the address of row l % 8 of matrix l / 8
// and receives, of each matrix, row l / 4's elements 2 (l % 4) and 2 (l % 4) + 1.
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const unsigned short* row) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(mma_smem_u32(row)));
}
// Two matrices (the addresses of lanes 0..15).
__device__ __forceinline__ void ldmatrix_x2(unsigned (&r)[2], const unsigned short* row) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(mma_smem_u32(row)));
}

// One stage: the P rows [row0, row0 + BM) and Q rows [col0, col0 + BN) of K slab kb, 16 bytes a
// copy, zeros past R, C or K (K % 8 == 0: a copy is wholly inside K or wholly past it).
__device__ __forceinline__ void load_stage(unsigned short* sp, unsigned short* sq,
                                           const unsigned short* __restrict__ P,
                                           const unsigned short* __restrict__ Q, int R, int C,
                                           int K, int row0, int col0, int kb) {
    constexpr int per_row = BK / 8, copies = (BM + BN) * per_row;
    for (int i = threadIdx.x; i < copies; i += THREADS) {
        const bool is_p = i < BM * per_row;
        const int j = is_p ? i : i - BM * per_row;
        const int r = j / per_row, k = kb * BK + (j % per_row) * 8;
        const int g = (is_p ? row0 : col0) + r;
        const bool in = g < (is_p ? R : C) && k < K;
        const unsigned short* src = in ? (is_p ? P : Q) + (long long)g * K + k : (is_p ? P : Q);
        unsigned short* dst = (is_p ? sp : sq) + r * LD + (j % per_row) * 8;
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(mma_smem_u32(dst)),
                     "l"(src), "r"(in ? 16 : 0)
                     : "memory");
    }
}

extern "C" __global__ void __launch_bounds__(THREADS)
    ktune_mma_gemm(const unsigned short* __restrict__ P, const unsigned short* __restrict__ Q,
                   unsigned short* __restrict__ out, int R, int C, int K, float alpha,
                   const unsigned short* __restrict__ bias) {
    extern __shared__ __align__(16) unsigned short smem[];
    unsigned short* sp = smem;                    // STAGES x BM x LD
    unsigned short* sq = smem + STAGES * BM * LD; // STAGES x BN x LD
    const int row0 = blockIdx.x * BM, col0 = blockIdx.y * BN;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wr = warp % WM, wc = warp / WM, g = lane / 4, q = lane % 4;
    const int kb_count = (K + BK - 1) / BK;

    float acc[MI][NI][4];
#pragma unroll
    for (int i = 0; i < MI; ++i) {
#pragma unroll
        for (int j = 0; j < NI; ++j) {
#pragma unroll
            for (int e = 0; e < 4; ++e)
                acc[i][j][e] = 0.0f;
        }
    }

    // The ring: STAGES - 1 slabs in flight ahead of the one computed on; one commit group an
    // iteration (empty past the end), so "all but STAGES - 2 groups done" means slab kb landed.
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < kb_count)
            load_stage(sp + s * BM * LD, sq + s * BN * LD, P, Q, R, C, K, row0, col0, s);
        asm volatile("cp.async.commit_group;" ::: "memory");
    }
    for (int kb = 0; kb < kb_count; ++kb) {
        asm volatile("cp.async.wait_group %0;" ::"n"(STAGES - 2) : "memory");
        __syncthreads(); // slab kb is visible to all; every warp is done with slab kb - 1's slot
        const int next = kb + STAGES - 1;
        if (next < kb_count)
            load_stage(sp + (next % STAGES) * BM * LD, sq + (next % STAGES) * BN * LD, P, Q, R, C,
                       K, row0, col0, next);
        asm volatile("cp.async.commit_group;" ::: "memory");
        // The row this lane addresses for ldmatrix. A (an m16 x k16): matrices (rows 0-7, k 0-7),
        // (rows 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15): mma's a0..a3. B (two n8
        // x k16): (n8 j, k 0-7), (j, k 8-15), (j + 1, k 0-7), (j + 1, k 8-15): b[j], b[j + 1].
        const int mat = lane / 8, r8 = lane % 8;
        const unsigned short* a_base =
            sp + (kb % STAGES) * BM * LD + (wr * TM + (mat & 1) * 8 + r8) * LD + (mat >> 1) * 8;
        const unsigned short* b_base =
            sq + (kb % STAGES) * BN * LD + (wc * TN + (mat >> 1) * 8 + r8) * LD + (mat & 1) * 8;
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            unsigned a[MI][4], b[NI][2];
#pragma unroll
            for (int i = 0; i < MI; ++i)
                ldmatrix_x4(a[i], a_base + i * 16 * LD + kk);
#pragma unroll
            for (int j = 0; j + 1 < NI; j += 2) {
                unsigned r[4];
                ldmatrix_x4(r, b_base + j * 8 * LD + kk);
                b[j][0] = r[0];
                b[j][1] = r[1];
                b[j + 1][0] = r[2];
                b[j + 1][1] = r[3];
            }
            if (NI % 2 == 1) // the last n8 alone: lanes 0..15 address its two matrices
                ldmatrix_x2(b[NI - 1], b_base + (NI - 1) * 8 * LD + kk);
#pragma unroll
            for (int i = 0; i < MI; ++i)
#pragma unroll
                for (int j = 0; j < NI; ++j)
                    asm volatile(
#if IN_F16
                        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
#else
                        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
#endif
                        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                        : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]),
                          "+f"(acc[i][j][3])
                        : "r"(a[i][0]), "r"(a[i][1]), "r"(a[i][2]), "r"(a[i][3]), "r"(b[j][0]),
                          "r"(b[j][1]));
        }
    }
    asm volatile("cp.async.wait_group 0;" ::: "memory");

    // Accumulator pairs (e 0, 1: row g; e 2, 3: row g + 8) are OUT's columns 2q, 2q + 1 of each
    // n8: one 4-byte store where both are inside and C is even, else element by element.
#pragma unroll
    for (int j = 0; j < NI; ++j) {
        const int col = col0 + wc * TN + j * 8 + 2 * q;
        const float2 bj = out_pair(bias_word(bias, col, C));
#pragma unroll
        for (int i = 0; i < MI; ++i)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int row = row0 + wr * TM + i * 16 + g + 8 * h;
                if (row >= R) continue;
                const unsigned packed = epi_pack(acc[i][j][2 * h], acc[i][j][2 * h + 1], alpha, bj);
                unsigned short* o = out + (long long)row * C + col;
                if ((C & 1) == 0 && col + 1 < C) {
                    *reinterpret_cast<unsigned*>(o) = packed;
                } else {
                    if (col < C) o[0] = (unsigned short)(packed & 0xffffu);
                    if (col + 1 < C) o[1] = (unsigned short)(packed >> 16);
                }
            }
    }
}
