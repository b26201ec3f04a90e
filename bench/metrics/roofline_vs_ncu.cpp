// A suite of kernels with known work: copy, strided (uncoalesced) scale, FP32 FMA chains, row
// sum, a tiny launch, softmax, layernorm, transpose, GELU, an FP32 SIMT GEMM and cuBLASLt bf16
// GEMMs at two shapes. --mode plain just runs it (for `ktune profile --metrics` and for ncu,
// both seeing every launch in the same order; --manifest names the launches of each workload);
// --mode ktune drives the range profiler in-process and writes a ktune.kernel_metrics document.
//
//   ktune profile --metrics roofline … -- bench_roofline_vs_ncu --mode plain --manifest m.json
//   ncu --cache-control none --clock-control none --metrics … --csv --page raw
//       bench_roofline_vs_ncu --mode plain > ncu.csv   (one command line)
#include "core/driver_api.hpp"
#include "ktune/compile/compile.hpp"
#include "ktune/core/check.hpp"
#include "ktune/core/cuda_handles.hpp"
#include "ktune/core/device.hpp"
#include "ktune/metrics/kernel_metrics.hpp"
#include "ktune/metrics/metric_host.hpp"
#include "ktune/metrics/range_session.hpp"
#include "metrics/bf16_gemm.hpp"

#include <cuda.h>
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace {

constexpr const char* k_source = R"(
extern "C" __global__ void k_copy(const float4* x, float4* y, unsigned long long n) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}
extern "C" __global__ void k_scale_strided(const float* x, float* y, unsigned long long n, int s) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    unsigned long long j = (i * s) % n;   // uncoalesced reads
    if (i < n) y[i] = 2.0f * x[j];
}
extern "C" __global__ void k_fma(float* out, int iters) {
    float a = threadIdx.x, b = a + 1, c = a + 2, d = a + 3;
    for (int i = 0; i < iters; ++i) {
        a = fmaf(a, 0.999f, 0.001f); b = fmaf(b, 0.999f, 0.001f);
        c = fmaf(c, 0.999f, 0.001f); d = fmaf(d, 0.999f, 0.001f);
    }
    if (a + b + c + d == 1.2345f) out[0] = a;
}
extern "C" __global__ void k_row_sum(const float* x, float* y, int cols) {
    __shared__ float part[256];
    const float* row = x + (unsigned long long)blockIdx.x * cols;
    float s = 0;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += row[c];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int w = 128; w > 0; w >>= 1) {
        if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) y[blockIdx.x] = part[0];
}
extern "C" __global__ void k_tiny(float* y) { y[threadIdx.x] += 1.0f; }
__device__ float block_sum(float v, float* part) {
    part[threadIdx.x] = v;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    float r = part[0];
    __syncthreads();
    return r;
}
__device__ float block_max(float v, float* part) {
    part[threadIdx.x] = v;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w) part[threadIdx.x] = fmaxf(part[threadIdx.x], part[threadIdx.x + w]);
        __syncthreads();
    }
    float r = part[0];
    __syncthreads();
    return r;
}
extern "C" __global__ void k_softmax(const float* x, float* y, int cols) {
    __shared__ float part[256];
    const float* row = x + (unsigned long long)blockIdx.x * cols;
    float* out = y + (unsigned long long)blockIdx.x * cols;
    float m = -3.0e38f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
    m = block_max(m, part);
    float s = 0;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += __expf(row[c] - m);
    s = block_sum(s, part);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) out[c] = __expf(row[c] - m) / s;
}
extern "C" __global__ void k_layernorm(const float* x, float* y, const float* g, const float* b,
                                       int cols) {
    __shared__ float part[256];
    const float* row = x + (unsigned long long)blockIdx.x * cols;
    float* out = y + (unsigned long long)blockIdx.x * cols;
    float s = 0, q = 0;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) { float v = row[c]; s += v; q += v * v; }
    const float mean = block_sum(s, part) / cols;
    const float var = block_sum(q, part) / cols - mean * mean;
    const float inv = rsqrtf(var + 1e-5f);
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        out[c] = (row[c] - mean) * inv * g[c] + b[c];
}
extern "C" __global__ void k_transpose(const float* x, float* y, int n) {
    __shared__ float tile[32][33];
    int bx = blockIdx.x * 32, by = blockIdx.y * 32;
    for (int j = threadIdx.y; j < 32; j += 8)
        tile[j][threadIdx.x] = x[(unsigned long long)(by + j) * n + bx + threadIdx.x];
    __syncthreads();
    for (int j = threadIdx.y; j < 32; j += 8)
        y[(unsigned long long)(bx + j) * n + by + threadIdx.x] = tile[threadIdx.x][j];
}
extern "C" __global__ void k_gelu(const float* x, float* y, unsigned long long n) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < n) { float v = x[i]; y[i] = 0.5f * v * (1.0f + tanhf(0.7978845f * (v + 0.044715f * v * v * v))); }
}
// FP32 SIMT GEMM, 64x64 tiles, 4x4 per thread (256 threads): C = A B, n x n, row-major.
extern "C" __global__ void k_sgemm(const float* A, const float* B, float* C, int n) {
    __shared__ float As[16][64], Bs[16][64];
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    const int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
    float acc[4][4] = {};
    for (int k0 = 0; k0 < n; k0 += 16) {
        for (int i = threadIdx.x; i < 16 * 64; i += 256) {
            const int r = i / 16, c = i % 16;   // A tile 64 rows x 16 cols, stored transposed
            As[c][r] = A[(unsigned long long)(row0 + r) * n + k0 + c];
            const int br = i / 64, bc = i % 64; // B tile 16 rows x 64 cols
            Bs[br][bc] = B[(unsigned long long)(k0 + br) * n + col0 + bc];
        }
        __syncthreads();
        for (int k = 0; k < 16; ++k) {
            float a[4], b[4];
            for (int i = 0; i < 4; ++i) { a[i] = As[k][ty * 4 + i]; b[i] = Bs[k][tx * 4 + i]; }
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
            C[(unsigned long long)(row0 + ty * 4 + i) * n + col0 + tx * 4 + j] = acc[i][j];
}
)";

using launch_t = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void**, void**);

} // namespace

int run(int argc, char** argv) {
    std::string mode = "ktune", out_path = "ktune.kernel_metrics.json", manifest;
    int repeat = 1; // --repeat R: each workload R times in a row (--replay launches needs >= 3)
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--repeat")) repeat = std::max(1, std::atoi(argv[i + 1]));
        if (!std::strcmp(argv[i], "--mode")) mode = argv[i + 1];
        if (!std::strcmp(argv[i], "--out")) out_path = argv[i + 1];
        if (!std::strcmp(argv[i], "--manifest")) manifest = argv[i + 1];
    }
    using namespace ktune;
    KTUNE_CUDA_CALL(cudaSetDevice(0));
    KTUNE_CUDA_CALL(cudaFree(nullptr));
    const auto q = query_devices();
    compile::compile_request req{k_source, "k_copy", q.devices.front().arch(), {}};
    const auto compiled = compile::nvrtc_compile(req);
    using load_t = CUresult (*)(CUmodule*, const void*);
    using get_t = CUresult (*)(CUfunction*, CUmodule, const char*);
    CUmodule mod = nullptr;
    if (ktune::detail::driver_fn<load_t>("cuModuleLoadData")(&mod, compiled.cubin.data())) return 1;
    auto fn = [&](const char* name) {
        CUfunction f = nullptr;
        ktune::detail::driver_fn<get_t>("cuModuleGetFunction")(&f, mod, name);
        return f;
    };
    auto launch = ktune::detail::driver_fn<launch_t>("cuLaunchKernel");

    const unsigned long long n = 64ull << 20; // floats: 256 MiB
    device_buffer x(n * 4), y(n * 4);
    KTUNE_CUDA_CALL(cudaMemset(x.data(), 0, n * 4));
    void *xp = x.data(), *yp = y.data();
    unsigned long long n4 = n / 4;
    int stride = 33, iters = 8192, cols = 8192, rows_cols = 4096, tn = 8192, gn = 2048;
    // Row ops: 16384 rows x 4096 floats (256 MiB); gamma/beta are read from x's tail.
    void *gp = static_cast<float*>(xp) + (n - 8192), *bp = static_cast<float*>(xp) + (n - 4096);
    void* copy_args[] = {&xp, &yp, &n4};
    // 16 MiB in, 16 MiB out: fits in L2 (50-60 MiB on Hopper), so its writes can end the
    // profiled range still dirty in L2 — the trailing-dirty-lines case of the DRAM comparison.
    unsigned long long n4_small = (16ull << 20) / 16;
    void* copy_small_args[] = {&xp, &yp, &n4_small};
    void* softmax_args[] = {&xp, &yp, &rows_cols};
    void* layernorm_args[] = {&xp, &yp, &gp, &bp, &rows_cols};
    void* transpose_args[] = {&xp, &yp, &tn};
    void* gelu_args[] = {&xp, &yp, const_cast<unsigned long long*>(&n)};
    // SGEMM operands: A and B in x (2 x 16 MiB), C in y.
    void *ap = xp, *bp2 = static_cast<float*>(xp) + gn * gn;
    void* sgemm_args[] = {&ap, &bp2, &yp, &gn};
    void* strided_args[] = {&xp, &yp, const_cast<unsigned long long*>(&n), &stride};
    void* fma_args[] = {&yp, &iters};
    void* row_args[] = {&xp, &yp, &cols};
    void* tiny_args[] = {&yp};

    struct workload {
        std::string name;
        std::function<void()> run;
    };
    const auto k = [&](CUfunction f, unsigned blocks, unsigned threads, void** args) {
        return [=] { launch(f, blocks, 1, 1, threads, 1, 1, 0, nullptr, args, nullptr); };
    };
    const auto k2 = [&](CUfunction f, unsigned gx, unsigned gy, unsigned bx, unsigned by,
                        void** args) {
        return [=] { launch(f, gx, gy, 1, bx, by, 1, 0, nullptr, args, nullptr); };
    };
    std::vector<workload> suite{
        {"copy_256MiB", k(fn("k_copy"), unsigned(n4 / 256), 256, copy_args)},
        {"scale_strided_256MiB", k(fn("k_scale_strided"), unsigned(n / 256), 256, strided_args)},
        {"fma_chain", k(fn("k_fma"), 132 * 16, 256, fma_args)},
        {"row_sum_8192x8192", k(fn("k_row_sum"), 8192, 256, row_args)},
        {"tiny_elementwise", k(fn("k_tiny"), 1, 32, tiny_args)},
        {"softmax_16384x4096", k(fn("k_softmax"), 16384, 256, softmax_args)},
        {"layernorm_16384x4096", k(fn("k_layernorm"), 16384, 256, layernorm_args)},
        {"transpose_8192", k2(fn("k_transpose"), 256, 256, 32, 8, transpose_args)},
        {"gelu_256MiB", k(fn("k_gelu"), unsigned(n / 256), 256, gelu_args)},
        {"sgemm_fp32_2048", k2(fn("k_sgemm"), 32, 32, 256, 1, sgemm_args)},
        {"copy_16MiB_fits_L2", k(fn("k_copy"), unsigned(n4_small / 256), 256, copy_small_args)},
    };
    // Launches per workload and the tensor FLOPs each launch must show (compare.py): the
    // GEMMs are time_bf16_gemm's 3 warm-up launches (src/metrics/bf16_gemm.cpp).
    nlohmann::json plan = nlohmann::json::array();
    for (const auto& w : suite)
        plan.push_back({{"workload", w.name}, {"launches", repeat}, {"tensor_flops", 0}});
    for (std::size_t g : {4096u, 8192u})
        suite.push_back({fmt::format("gemm_bf16_{}", g), [g] {
                             std::vector<double> ms;
                             metrics::detail::time_bf16_gemm(g, 0, ms); // warm-ups only
                         }});
    for (double g : {4096.0, 8192.0})
        plan.push_back({{"workload", fmt::format("gemm_bf16_{}", int(g))},
                        {"launches", 3 * repeat},
                        {"tensor_flops", 2 * g * g * g}});
    if (!manifest.empty()) std::ofstream(manifest) << plan.dump(1) << "\n";

    const auto t0 = std::chrono::steady_clock::now();
    metrics::kernel_metrics_doc doc;
    doc.gpu = q.devices.front().name;
    if (mode == "plain") {
        for (auto& w : suite)
            for (int r = 0; r < repeat; ++r)
                w.run();
        KTUNE_CUDA_CALL(cudaDeviceSynchronize());
    } else {
        auto backend = metrics::make_cupti_range_backend();
        doc.chip = backend->chip();
        const auto set = metrics::resolve_metric_set(
            metrics::metric_set_request("roofline", metrics::tensor_precision::measure), doc.chip,
            3);
        doc.metric_set = set.name;
        doc.passes = set.passes;
        backend->configure(set.metrics, 64, metrics::replay_mode::kernel);
        // A workload may launch several kernels (the GEMM's warm-ups): their ranges add up.
        for (auto& w : suite) {
            backend->start();
            w.run();
            KTUNE_CUDA_CALL(cudaDeviceSynchronize());
            (void)backend->stop();
            const auto d = backend->decode();
            doc.dropped_ranges += d.dropped;
            metrics::kernel_sample s;
            s.name = w.name;
            s.launches = d.values.size();
            for (const auto& r : d.values)
                for (std::size_t m = 0; m < set.metrics.size(); ++m)
                    s.values[set.metrics[m]] += r[m];
            // Per-launch means: ncu reports per kernel, and the classifier reads one launch.
            for (auto& [name, v] : s.values)
                v /= double(std::max<std::uint64_t>(s.launches, 1));
            doc.kernels.push_back(std::move(s));
        }
        metrics::write_kernel_metrics(out_path, doc);
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    fmt::print("mode {}: {} workloads in {:.3f} s\n", mode, suite.size(), secs);
    return 0;
}

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        fmt::print(stderr, "bench_roofline_vs_ncu: {}\n", e.what());
        return 2;
    }
}
