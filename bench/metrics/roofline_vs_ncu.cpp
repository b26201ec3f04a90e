// A suite of kernels with known work, profiled by ktune's range profiler (--mode ktune) or left
// alone for ncu to profile (--mode plain). Writes a ktune.kernel_metrics document whose names
// match the workloads; compare.py joins it with ncu's CSV.
//
//   bench_roofline_vs_ncu --mode ktune --out ktune.json
//   ncu --clock-control none --metrics … --csv bench_roofline_vs_ncu --mode plain > ncu.csv
#include "core/driver_api.hpp"
#include "ktune/core/check.hpp"
#include "ktune/core/cuda_handles.hpp"
#include "ktune/core/device.hpp"
#include "ktune/measure/compile.hpp"
#include "ktune/metrics/kernel_metrics.hpp"
#include "ktune/metrics/metric_host.hpp"
#include "ktune/metrics/range_session.hpp"
#include "metrics/bf16_gemm.hpp"

#include <cuda.h>
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <chrono>
#include <cstring>
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
)";

using launch_t = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void**, void**);

} // namespace

int run(int argc, char** argv) {
    std::string mode = "ktune", out_path = "ktune.kernel_metrics.json";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--mode")) mode = argv[i + 1];
        if (!std::strcmp(argv[i], "--out")) out_path = argv[i + 1];
    }
    using namespace ktune;
    KTUNE_CUDA_CALL(cudaSetDevice(0));
    KTUNE_CUDA_CALL(cudaFree(nullptr));
    const auto q = query_devices();
    measure::compile_request req{k_source, "k_copy", q.devices.front().arch(), {}};
    const auto compiled = measure::nvrtc_compile(req);
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
    int stride = 33, iters = 8192, cols = 8192;
    void* copy_args[] = {&xp, &yp, &n4};
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
    std::vector<workload> suite{
        {"copy_256MiB", k(fn("k_copy"), unsigned(n4 / 256), 256, copy_args)},
        {"scale_strided_256MiB", k(fn("k_scale_strided"), unsigned(n / 256), 256, strided_args)},
        {"fma_chain", k(fn("k_fma"), 132 * 16, 256, fma_args)},
        {"row_sum_8192x8192", k(fn("k_row_sum"), 8192, 256, row_args)},
        {"tiny_elementwise", k(fn("k_tiny"), 1, 32, tiny_args)},
    };
    for (std::size_t g : {4096u, 8192u})
        suite.push_back({fmt::format("gemm_bf16_{}", g), [g] {
                             std::vector<double> ms;
                             metrics::detail::time_bf16_gemm(g, 0, ms); // warm-ups only
                         }});

    const auto t0 = std::chrono::steady_clock::now();
    metrics::kernel_metrics_doc doc;
    doc.gpu = q.devices.front().name;
    if (mode == "plain") {
        for (auto& w : suite)
            w.run();
        KTUNE_CUDA_CALL(cudaDeviceSynchronize());
    } else {
        auto backend = metrics::make_cupti_range_backend();
        doc.chip = backend->chip();
        const auto set =
            metrics::resolve_metric_set(metrics::metric_set_request("roofline"), doc.chip, 3);
        doc.metric_set = set.name;
        doc.passes = set.passes;
        backend->configure(set.metrics, 64);
        // A workload may launch several kernels (the GEMM's warm-ups): their ranges add up.
        for (auto& w : suite) {
            backend->start();
            w.run();
            KTUNE_CUDA_CALL(cudaDeviceSynchronize());
            backend->stop();
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
