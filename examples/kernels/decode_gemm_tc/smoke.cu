// A standalone device check of decode_gemm_tc.cu without ktune (docs/perf/kernel.md#tensor-core-
// decode-gemm): 24 configs (split-K over warps and blocks, every MTILE, X from L1/L2 and from the
// shared-memory stage) against a CPU reference
// in double on odd and Llama-sized problems, bf16 and fp8 weights, each launched 3 times (the
// split-K workspace must come back zeroed), then rough back-to-back timings (no L2 flush; W of
// 4096 x 11008 is beyond L2). Exit 1 on a wrong output.
//   nvcc -std=c++17 -arch=sm_90 -O2 -o /tmp/decode_tc_smoke smoke.cu && /tmp/decode_tc_smoke
#include "decode_gemm_tc.cu"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <random>
#include <vector>

static unsigned short f2bf(float f) {
    unsigned u;
    memcpy(&u, &f, 4);
    u += 0x7fff + ((u >> 16) & 1);
    return u >> 16;
}
static float bf2f(unsigned short h) {
    unsigned u = (unsigned)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static float e4m3f(unsigned char c) {
    int e = (c >> 3) & 15, m = c & 7;
    float v = e == 0 ? ldexpf((float)m, -9) : ldexpf(1.0f + m / 8.0f, e - 7);
    return c & 0x80 ? -v : v;
}
#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                      \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

struct Prob {
    int M, N, K;
    bool fp8;
    bool subnormal = false; // fp8 codes with a zero exponent only: flushed, D would be 0
};
typedef void (*kbf)(const uint4*, const uint4*, unsigned short*, float*, int*, int, int, int);
typedef void (*kf8)(const uint4*, const uint4*, const float*, unsigned short*, float*, int*, int,
                    int, int);
struct Cfg {
    int KSPLIT, WARPS_N, ROWS, UNROLL, MTILE, SPLITK, XSTAGE;
    kbf b;
    kf8 f;
};
#define C(a, w, b_, c, d, e, x)                                                                    \
    Cfg {                                                                                          \
        a, w, b_, c, d, e, x, decode_gemm_tc<a, w, b_, c, d, e, x>,                                \
            decode_gemm_tc_fp8<a, w, b_, c, d, e, x>                                               \
    }
static Cfg cfgs[] = {C(4, 1, 16, 4, 8, 1, 0),  C(1, 1, 16, 1, 8, 1, 0),  C(8, 1, 16, 2, 8, 1, 0),
                     C(2, 1, 32, 2, 16, 2, 0), C(1, 1, 64, 1, 8, 4, 0),  C(4, 1, 16, 4, 16, 2, 0),
                     C(8, 1, 32, 2, 32, 1, 0), C(2, 1, 16, 4, 64, 4, 0), C(1, 1, 32, 2, 64, 1, 0),
                     C(4, 1, 64, 1, 32, 2, 0), C(8, 1, 16, 4, 8, 2, 0),  C(2, 1, 16, 4, 8, 4, 0),
                     C(2, 4, 16, 4, 32, 1, 0), C(1, 4, 32, 2, 64, 1, 0), C(2, 2, 32, 2, 64, 2, 0),
                     C(4, 2, 16, 4, 32, 4, 0), C(1, 8, 16, 4, 64, 4, 1), C(2, 4, 32, 2, 64, 4, 1),
                     C(1, 4, 32, 2, 64, 2, 1), C(2, 2, 64, 1, 32, 2, 1), C(4, 2, 16, 4, 16, 1, 1),
                     C(1, 8, 16, 2, 32, 1, 1), C(2, 1, 64, 1, 16, 4, 1), C(8, 1, 64, 1, 32, 2, 1)};

int run(Prob p, bool timing) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> U(-1, 1);
    size_t xe = (size_t)p.M * p.K, we = (size_t)p.N * p.K;
    std::vector<unsigned short> X(xe), Wb;
    std::vector<unsigned char> W8;
    std::vector<float> xf(xe), wf(we);
    for (size_t i = 0; i < xe; ++i) {
        X[i] = f2bf(U(rng));
        xf[i] = bf2f(X[i]);
    }
    if (p.fp8) {
        W8.resize(we);
        for (size_t i = 0; i < we; ++i) {
            unsigned char c;
            do
                c = rng() & (p.subnormal ? 0x87 : 0xff);
            while ((c & 0x7f) == 0x7f || (c & 0x78) > 0x38);
            W8[i] = c;
            wf[i] = e4m3f(c);
        }
    } else {
        Wb.resize(we);
        for (size_t i = 0; i < we; ++i) {
            Wb[i] = f2bf(U(rng));
            wf[i] = bf2f(Wb[i]);
        }
    }
    float scale = p.fp8 ? 0.37f : 1.0f;
    std::vector<double> ref((size_t)p.M * p.N);
    for (int m = 0; m < p.M; ++m)
        for (int n = 0; n < p.N; ++n) {
            double a = 0;
            const float* x = &xf[(size_t)m * p.K];
            const float* w = &wf[(size_t)n * p.K];
            for (int k = 0; k < p.K; ++k)
                a += (double)x[k] * w[k];
            ref[(size_t)m * p.N + n] = a * scale;
        }
    void *dX, *dW, *dD, *dWS, *dC, *dS;
    CK(cudaMalloc(&dX, xe * 2));
    CK(cudaMalloc(&dW, p.fp8 ? we : we * 2));
    CK(cudaMalloc(&dD, (size_t)p.M * p.N * 2));
    CK(cudaMalloc(&dWS, (size_t)p.M * p.N * 4));
    CK(cudaMalloc(&dC, ((p.N + 15) / 16) * ((p.M + 7) / 8) * 4));
    CK(cudaMalloc(&dS, 4));
    CK(cudaMemcpy(dX, X.data(), xe * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dW, p.fp8 ? (void*)W8.data() : (void*)Wb.data(), p.fp8 ? we : we * 2,
                  cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dS, &scale, 4, cudaMemcpyHostToDevice));
    CK(cudaMemset(dWS, 0, (size_t)p.M * p.N * 4));
    CK(cudaMemset(dC, 0, ((p.N + 15) / 16) * ((p.M + 7) / 8) * 4));
    int fails = 0;
    std::vector<unsigned short> D((size_t)p.M * p.N);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (const Cfg& c : cfgs) {
        if (c.MTILE - 8 >= p.M && c.MTILE != 8) continue;
        const int width = c.WARPS_N * c.ROWS;
        dim3 grid((p.M + c.MTILE - 1) / c.MTILE, (p.N + width - 1) / width, c.SPLITK),
            block(c.KSPLIT * c.WARPS_N * 32);
        size_t sh = c.KSPLIT > 1 ? (size_t)c.KSPLIT * width * c.MTILE * 4 : 0;
        if (c.XSTAGE) { // the spec's shared_bytes: two X stages of padded rows
            const int ku = c.KSPLIT * c.UNROLL;
            const int ru = p.fp8 ? ku * 8 + 1 : ku * 4 + (ku % 2 == 0 ? 4 : 0);
            sh = std::max(sh, (size_t)2 * 16 * c.MTILE * ru);
        }
        const void* fn = p.fp8 ? (const void*)c.f : (const void*)c.b;
        CK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, 100000));
        auto launch = [&]() {
            if (p.fp8)
                c.f<<<grid, block, sh>>>((const uint4*)dX, (const uint4*)dW, (const float*)dS,
                                         (unsigned short*)dD, (float*)dWS, (int*)dC, p.M, p.N, p.K);
            else
                c.b<<<grid, block, sh>>>((const uint4*)dX, (const uint4*)dW, (unsigned short*)dD,
                                         (float*)dWS, (int*)dC, p.M, p.N, p.K);
        };
        int bad = 0;
        double maxerr = 0;
        for (int rep = 0; rep < 3; ++rep) {
            CK(cudaMemset(dD, 0xff, (size_t)p.M * p.N * 2));
            launch();
            CK(cudaGetLastError());
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(D.data(), dD, D.size() * 2, cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < D.size(); ++i) {
                double g = bf2f(D[i]), r = ref[i], err = fabs(g - r);
                if (!(err <= 0.05 + 0.01 * fabs(r))) {
                    if (bad < 3) printf("    bad rep %d i %zu got %g ref %g\n", rep, i, g, r);
                    ++bad;
                }
                if (err > maxerr) maxerr = err;
            }
        }
        float us = 0;
        if (timing) {
            for (int i = 0; i < 5; ++i)
                launch();
            cudaEventRecord(e0);
            for (int i = 0; i < 50; ++i)
                launch();
            cudaEventRecord(e1);
            CK(cudaEventSynchronize(e1));
            cudaEventElapsedTime(&us, e0, e1);
            us = us * 1000 / 50;
        }
        double bytes = (p.fp8 ? 1.0 : 2.0) * p.N * p.K + 2.0 * p.M * p.K + 2.0 * p.M * p.N;
        printf("%s M=%d N=%d K=%d cfg KS%d WN%d R%d U%d MT%d SK%d XS%d: %s (bad %d, max err "
               "%.3g) %.2f us %.0f GB/s\n",
               p.fp8 ? "fp8 " : "bf16", p.M, p.N, p.K, c.KSPLIT, c.WARPS_N, c.ROWS, c.UNROLL,
               c.MTILE, c.SPLITK, c.XSTAGE, bad ? "WRONG" : "ok", bad, maxerr, us,
               us > 0 ? bytes / us / 1e3 : 0);
        fails += bad > 0;
    }
    cudaFree(dX);
    cudaFree(dW);
    cudaFree(dD);
    cudaFree(dWS);
    cudaFree(dC);
    cudaFree(dS);
    return fails;
}
int main() {
    int f = 0;
    Prob ps[] = {{13, 4104, 4104, false}, {1, 4096, 4096, false},      {64, 1000, 520, false},
                 {13, 4104, 4112, true},  {3, 200, 64, true},          {1, 4096, 11008, false},
                 {8, 4096, 11008, false}, {16, 4096, 11008, false},    {64, 4096, 11008, false},
                 {8, 4096, 11008, true},  {5, 1000, 4096, true, true}, {40, 1000, 4104, false},
                 {33, 1040, 4112, true}};
    for (int i = 0; i < 13; ++i)
        f += run(ps[i], i >= 5 && i < 10);
    printf("FAILS %d\n", f);
    return f != 0;
}
