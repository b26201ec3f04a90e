// Tiled fp32 matmul C = A * B (row-major; A is MxK, B is KxN), the kernel of matmul.json.
// Each block computes a TILE_M x TILE_N tile of C with (TILE_N / WPT_N) x (TILE_M / WPT_M)
// threads, each thread WPT_M x WPT_N outputs spread over the tile (strided, so neighbouring
// threads read neighbouring shared-memory words). A and B tiles of depth TILE_K are staged in
// dynamic shared memory, transposed for A, padded by SMEM_PAD words per row against bank
// conflicts, and with DOUBLE_BUFFER the next tile is loaded while this one is used.
#ifndef UNROLL_K
#define UNROLL_K 0
#endif
#ifndef SMEM_PAD
#define SMEM_PAD 0
#endif
#ifndef DOUBLE_BUFFER
#define DOUBLE_BUFFER 0
#endif

template <int TILE_M, int TILE_N, int TILE_K, int WPT_M, int WPT_N>
__global__ void matmul(const float* __restrict__ A, const float* __restrict__ B,
                       float* __restrict__ C, int M, int N, int K) {
    constexpr int BX = TILE_N / WPT_N; // threads along N
    constexpr int BY = TILE_M / WPT_M; // threads along M
    constexpr int THREADS = BX * BY;
    constexpr int A_STRIDE = TILE_M + SMEM_PAD;
    constexpr int B_STRIDE = TILE_N + SMEM_PAD;
    constexpr int STAGES = 1 + DOUBLE_BUFFER;
    extern __shared__ float smem[];
    float* As = smem;                              // [STAGES][TILE_K][A_STRIDE]
    float* Bs = smem + STAGES * TILE_K * A_STRIDE; // [STAGES][TILE_K][B_STRIDE]

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * BX + tx;
    const int row0 = blockIdx.y * TILE_M, col0 = blockIdx.x * TILE_N;

    auto load = [&](int stage, int k0) {
        float* as = As + stage * TILE_K * A_STRIDE;
        float* bs = Bs + stage * TILE_K * B_STRIDE;
        for (int e = tid; e < TILE_M * TILE_K; e += THREADS) {
            const int m = e / TILE_K, k = e % TILE_K; // consecutive threads: consecutive k
            const int gm = row0 + m, gk = k0 + k;
            as[k * A_STRIDE + m] = (gm < M && gk < K) ? A[(long long)gm * K + gk] : 0.0f;
        }
        for (int e = tid; e < TILE_K * TILE_N; e += THREADS) {
            const int k = e / TILE_N, n = e % TILE_N; // consecutive threads: consecutive n
            const int gk = k0 + k, gn = col0 + n;
            bs[k * B_STRIDE + n] = (gk < K && gn < N) ? B[(long long)gk * N + gn] : 0.0f;
        }
    };

    float acc[WPT_M][WPT_N];
    for (int i = 0; i < WPT_M; ++i)
        for (int j = 0; j < WPT_N; ++j)
            acc[i][j] = 0.0f;

    const int tiles = (K + TILE_K - 1) / TILE_K;
    load(0, 0);
    __syncthreads();
    for (int t = 0; t < tiles; ++t) {
        const int cur = DOUBLE_BUFFER ? (t & 1) : 0;
        // The other stage was last read in iteration t-1, which ended with a barrier.
        if (DOUBLE_BUFFER && t + 1 < tiles) load(cur ^ 1, (t + 1) * TILE_K);
        const float* as = As + cur * TILE_K * A_STRIDE;
        const float* bs = Bs + cur * TILE_K * B_STRIDE;
#if UNROLL_K
#pragma unroll
#endif
        for (int k = 0; k < TILE_K; ++k) {
            float a[WPT_M], b[WPT_N];
            for (int i = 0; i < WPT_M; ++i)
                a[i] = as[k * A_STRIDE + ty + i * BY];
            for (int j = 0; j < WPT_N; ++j)
                b[j] = bs[k * B_STRIDE + tx + j * BX];
            for (int i = 0; i < WPT_M; ++i)
                for (int j = 0; j < WPT_N; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
        if (!DOUBLE_BUFFER && t + 1 < tiles) {
            load(0, (t + 1) * TILE_K);
            __syncthreads();
        }
    }
    for (int i = 0; i < WPT_M; ++i)
        for (int j = 0; j < WPT_N; ++j) {
            const int gm = row0 + ty + i * BY, gn = col0 + tx + j * BX;
            if (gm < M && gn < N) C[(long long)gm * N + gn] = acc[i][j];
        }
}
