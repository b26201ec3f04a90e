#include "ktune/metrics/device_measure.hpp"

#include "bf16_gemm.hpp"
#include "core/driver_api.hpp"
#include "ktune/compile/compile.hpp"
#include "ktune/core/check.hpp"
#include "ktune/core/cuda_handles.hpp"
#include "ktune/core/error.hpp"
#include "ktune/measure/copy_bandwidth.hpp"

#include <cuda.h>
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace ktune::metrics {
namespace {

// Eight independent FMA chains per thread keep the FP32 pipes full without waiting on latency.
constexpr const char* k_fma_source = R"(
extern "C" __global__ void ktune_fma_chain(float* out, int iters, float a, float b) {
    float x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3, x4 = x0 + 4, x5 = x0 + 5,
          x6 = x0 + 6, x7 = x0 + 7;
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int j = 0; j < 16; ++j) {
            x0 = fmaf(x0, a, b); x1 = fmaf(x1, a, b); x2 = fmaf(x2, a, b); x3 = fmaf(x3, a, b);
            x4 = fmaf(x4, a, b); x5 = fmaf(x5, a, b); x6 = fmaf(x6, a, b); x7 = fmaf(x7, a, b);
        }
    }
    // A data-dependent store stops the compiler from removing the chains.
    if (x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 == 1.2345f) out[threadIdx.x] = x0;
}
)";

measured_rate summarise(std::string what, std::string unit, std::string detail,
                        std::vector<double> values) {
    measured_rate r{std::move(what),   0, 0, 0, static_cast<int>(values.size()), std::move(unit),
                    std::move(detail), {}};
    if (values.empty()) return r;
    std::ranges::sort(values);
    r.min = values.front();
    r.max = values.back();
    const std::size_t n = values.size();
    r.median = n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
    return r;
}

// Times `work` with events `repeats` times after two warm-ups; milliseconds per call.
std::vector<double> time_ms(const std::function<void(cudaStream_t)>& work, int repeats) {
    cuda_stream stream;
    cuda_event start, stop;
    for (int i = 0; i < 2; ++i)
        work(stream.get());
    std::vector<double> ms;
    for (int i = 0; i < repeats; ++i) {
        KTUNE_CUDA_CALL(cudaEventRecord(start.get(), stream.get()));
        work(stream.get());
        KTUNE_CUDA_CALL(cudaEventRecord(stop.get(), stream.get()));
        KTUNE_CUDA_CALL(cudaEventSynchronize(stop.get()));
        float t = 0;
        KTUNE_CUDA_CALL(cudaEventElapsedTime(&t, start.get(), stop.get()));
        ms.push_back(t);
    }
    return ms;
}

measured_rate measure_copy() {
    // The one copy roof (ktune/measure/copy_bandwidth.hpp): tune's "% of copy" uses it too.
    const auto c = measure::measure_copy_bandwidth();
    measured_rate r{"copy",
                    c.median_gbs,
                    c.min_gbs,
                    c.max_gbs,
                    c.repeats,
                    "GB/s",
                    fmt::format("{} MiB D2D, read + written; best form: {}", c.bytes >> 20, c.form),
                    {}};
    return r;
}

measured_rate measure_fma(const cudaDeviceProp& prop) {
    compile::compile_request req;
    req.source = k_fma_source;
    req.name_expression = "ktune_fma_chain";
    req.arch = fmt::format("sm_{}{}", prop.major, prop.minor);
    const auto compiled = compile::nvrtc_compile(req);
    using load_t = CUresult (*)(CUmodule*, const void*);
    using get_t = CUresult (*)(CUfunction*, CUmodule, const char*);
    using launch_t = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                  unsigned, unsigned, CUstream, void**, void**);
    using unload_t = CUresult (*)(CUmodule);
    auto load = ktune::detail::driver_fn<load_t>("cuModuleLoadData");
    auto get = ktune::detail::driver_fn<get_t>("cuModuleGetFunction");
    auto launch = ktune::detail::driver_fn<launch_t>("cuLaunchKernel");
    auto unload = ktune::detail::driver_fn<unload_t>("cuModuleUnload");
    if (!load || !get || !launch || !unload)
        throw error(error_kind::no_device, "the CUDA driver's module API is not available");
    CUmodule mod = nullptr;
    if (const CUresult rc = load(&mod, compiled.cubin.data()); rc != CUDA_SUCCESS)
        throw error(error_kind::cuda, "cuModuleLoadData: " + ktune::detail::driver_error_name(rc));
    struct unloader {
        unload_t f;
        CUmodule m;
        ~unloader() { f(m); }
    } guard{unload, mod};
    CUfunction fn = nullptr;
    if (const CUresult rc = get(&fn, mod, compiled.lowered_name.c_str()); rc != CUDA_SUCCESS)
        throw error(error_kind::cuda,
                    "cuModuleGetFunction: " + ktune::detail::driver_error_name(rc));
    device_buffer out(4096);
    void* out_ptr = out.data();
    int iters = 4096;
    float a = 0.999f, b = 0.001f;
    void* args[] = {&out_ptr, &iters, &a, &b};
    const unsigned blocks = static_cast<unsigned>(prop.multiProcessorCount) * 8, threads = 256;
    auto ms = time_ms(
        [&](cudaStream_t s) {
            if (const CUresult rc = launch(fn, blocks, 1, 1, threads, 1, 1, 0,
                                           reinterpret_cast<CUstream>(s), args, nullptr);
                rc != CUDA_SUCCESS)
                throw error(error_kind::cuda,
                            "cuLaunchKernel: " + ktune::detail::driver_error_name(rc));
        },
        10);
    const double flops = 2.0 * 8 * 16 * double(iters) * blocks * threads;
    std::vector<double> tf;
    tf.reserve(ms.size());
    for (double t : ms)
        tf.push_back(flops / (t * 1e-3) / 1e12);
    return summarise("fp32_fma", "TFLOP/s",
                     fmt::format("NVRTC FMA chains, {} blocks x {} threads", blocks, threads), tf);
}

measured_rate measure_gemm() {
    const std::size_t n = 8192;
    std::vector<double> ms;
    detail::time_bf16_gemm(n, 10, ms);
    std::vector<double> tf;
    tf.reserve(ms.size());
    for (double t : ms)
        tf.push_back(2.0 * double(n) * n * n / (t * 1e-3) / 1e12);
    return summarise("bf16_gemm", "TFLOP/s",
                     fmt::format("cuBLASLt bf16 GEMM {}^3, FP32 accumulate", n), tf);
}

template <class F>
measured_rate guarded(std::string what, std::string unit, F&& f) {
    try {
        return f();
    } catch (const error& e) {
        if (e.kind() == error_kind::no_device) throw;
        measured_rate r;
        r.what = std::move(what);
        r.unit = std::move(unit);
        r.error = e.what();
        return r;
    }
}

} // namespace

device_measurement measure_device(int ordinal) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || ordinal >= count || ordinal < 0)
        throw error(error_kind::no_device,
                    fmt::format("no CUDA GPU {} to measure ({} visible)", ordinal, count));
    KTUNE_CUDA_CALL(cudaSetDevice(ordinal));
    cudaDeviceProp prop{};
    KTUNE_CUDA_CALL(cudaGetDeviceProperties(&prop, ordinal));
    device_measurement m;
    m.rates.push_back(guarded("copy", "GB/s", [] { return measure_copy(); }));
    m.rates.push_back(guarded("fp32_fma", "TFLOP/s", [&] { return measure_fma(prop); }));
    m.rates.push_back(guarded("bf16_gemm", "TFLOP/s", [] { return measure_gemm(); }));
    m.peaks.dram_gbs = m.rates[0].median;
    m.peaks.fp32_tflops = m.rates[1].median;
    m.peaks.bf16_tensor_tflops = m.rates[2].median;
    return m;
}

} // namespace ktune::metrics
