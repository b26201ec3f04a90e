// The range profiler on a real GPU: a copy kernel's DRAM bytes and an FMA kernel's exact FFMA
// count, through ktune's session (auto range, kernel replay); and the measured device peaks.
#include "catch.hpp"

#include "core/driver_api.hpp"
#include "ktune/compile/compile.hpp"
#include "ktune/core/check.hpp"
#include "ktune/core/cuda_handles.hpp"
#include "ktune/core/device.hpp"
#include "ktune/core/gpu_peaks.hpp"
#include "ktune/metrics/device_measure.hpp"
#include "ktune/metrics/metric_host.hpp"
#include "ktune/metrics/range_session.hpp"

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <string>

using namespace ktune::metrics;

namespace {

constexpr const char* k_source = R"(
extern "C" __global__ void ktune_copy(const float4* x, float4* y, unsigned long long n) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}
extern "C" __global__ void ktune_fma(float* out, int iters) {
    float v = threadIdx.x;
    for (int i = 0; i < iters; ++i) v = fmaf(v, 0.999f, 0.001f);
    if (v == 1.2345f) out[0] = v;
}
)";

struct module {
    CUmodule mod = nullptr;
    CUfunction copy = nullptr, fma = nullptr;
    module() {
        const auto q = ktune::query_devices();
        ktune::compile::compile_request r;
        r.source = k_source;
        r.name_expression = "ktune_copy";
        r.arch = q.devices.front().arch();
        const auto c = ktune::compile::nvrtc_compile(r);
        using load_t = CUresult (*)(CUmodule*, const void*);
        using get_t = CUresult (*)(CUfunction*, CUmodule, const char*);
        REQUIRE(ktune::detail::driver_fn<load_t>("cuModuleLoadData")(&mod, c.cubin.data()) ==
                CUDA_SUCCESS);
        auto get = ktune::detail::driver_fn<get_t>("cuModuleGetFunction");
        REQUIRE(get(&copy, mod, "ktune_copy") == CUDA_SUCCESS);
        REQUIRE(get(&fma, mod, "ktune_fma") == CUDA_SUCCESS);
    }
    void launch(CUfunction f, unsigned blocks, unsigned threads, void** args) const {
        using launch_t = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                      unsigned, unsigned, CUstream, void**, void**);
        auto l = ktune::detail::driver_fn<launch_t>("cuLaunchKernel");
        REQUIRE(l(f, blocks, 1, 1, threads, 1, 1, 0, nullptr, args, nullptr) == CUDA_SUCCESS);
        KTUNE_CUDA_CALL(cudaDeviceSynchronize());
    }
};

} // namespace

TEST_CASE("the range session measures DRAM bytes and FFMA counts of sampled launches") {
    KTUNE_CUDA_CALL(cudaSetDevice(0));
    KTUNE_CUDA_CALL(cudaFree(nullptr)); // a current context for CUPTI
    module m;
    auto backend = make_cupti_range_backend();
    const std::string chip = backend->chip();
    const auto set =
        resolve_metric_set(metric_set_request("roofline", tensor_precision::measure), chip, 3);
    std::printf("chip %s: roofline set of %zu metrics needs %zu passes\n", chip.c_str(),
                set.metrics.size(), set.passes);
    range_session s(set, {"ktune_", 1, 10, 1, {}, ""}, std::move(backend), 8);

    const unsigned long long n4 = (256ull << 20) / 16; // 256 MiB of float4
    ktune::device_buffer x(n4 * 16), y(n4 * 16), out(64);
    KTUNE_CUDA_CALL(cudaMemset(x.data(), 0, n4 * 16));
    void* xp = x.data();
    void* yp = y.data();
    void* copy_args[] = {&xp, &yp, const_cast<unsigned long long*>(&n4)};
    const unsigned copy_blocks = static_cast<unsigned>((n4 + 255) / 256);
    m.launch(m.copy, copy_blocks, 256, copy_args); // warm-up, outside any range
    REQUIRE(s.launch_begin("ktune_copy", 1, 0, false));
    m.launch(m.copy, copy_blocks, 256, copy_args);
    s.launch_end();
    void* op = out.data();
    int iters = 4096;
    void* fma_args[] = {&op, &iters};
    REQUIRE(s.launch_begin("ktune_fma", 2, 0, false));
    m.launch(m.fma, 1024, 256, fma_args);
    s.launch_end();
    CHECK_FALSE(s.launch_begin("ktune_fma", 3, 0, false)); // one launch per kernel
    const auto doc = s.finish();
    REQUIRE(doc.kernels.size() == 2);
    CHECK(doc.dropped_ranges == 0);
    const auto& copy = doc.kernels[0].values;
    const auto& fma = doc.kernels[1].values;
    const double bytes = double(n4) * 16;
    std::printf("copy: %.0f ns, DRAM read %.0f, write %.0f (expected %.0f each)\n",
                copy.at("gpu__time_duration.sum"), copy.at("dram__bytes_read.sum"),
                copy.at("dram__bytes_write.sum"), bytes);
    CHECK(copy.at("dram__bytes_read.sum") == Approx(bytes).epsilon(0.05));
    // Writes reach DRAM when L2 evicts them: up to one L2 of the output may still be dirty there
    // when the range ends (the H200's 60 MiB L2 held 23 MB of this 256 MiB copy).
    int l2 = 0;
    KTUNE_CUDA_CALL(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    CHECK(copy.at("dram__bytes_write.sum") <= bytes * 1.05);
    CHECK(copy.at("dram__bytes_write.sum") >= bytes - double(l2));
    const double ffma = 1024.0 * 256 * iters;
    std::printf("fma: %.0f ns, FFMA %.0f (expected %.0f)\n", fma.at("gpu__time_duration.sum"),
                fma.at("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"), ffma);
    CHECK(fma.at("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum") ==
          Approx(ffma).epsilon(0.001));
    CHECK(set.passes <= 3);
}

TEST_CASE("launches mode collects a loop's kernels together, with nothing replayed") {
    KTUNE_CUDA_CALL(cudaSetDevice(0));
    KTUNE_CUDA_CALL(cudaFree(nullptr));
    module m;
    auto backend = make_cupti_range_backend();
    const std::string chip = backend->chip();
    const auto set =
        resolve_metric_set(metric_set_request("roofline", tensor_precision::measure), chip, 3);
    range_session s(set, {"ktune_", 1, 10, 1, {}, ""}, std::move(backend), 8,
                    replay_mode::launches);
    const unsigned long long n4 = (256ull << 20) / 16;
    ktune::device_buffer x(n4 * 16), y(n4 * 16), out(64);
    KTUNE_CUDA_CALL(cudaMemset(x.data(), 0, n4 * 16));
    void* xp = x.data();
    void* yp = y.data();
    void* copy_args[] = {&xp, &yp, const_cast<unsigned long long*>(&n4)};
    const unsigned copy_blocks = static_cast<unsigned>((n4 + 255) / 256);
    void* op = out.data();
    int iters = 4096;
    void* fma_args[] = {&op, &iters};
    m.launch(m.copy, copy_blocks, 256, copy_args); // warm-up
    // A loop of copy, fma: pass 0 takes both in one pass and closes when copy comes back;
    // passes 1 and 2 are the next two iterations; every later launch runs unprofiled.
    std::size_t copies = 0, fmas = 0;
    for (std::uint64_t it = 0; it < 10; ++it) {
        if (s.launch_begin("ktune_copy", 2 * it, 0, false, "copy")) {
            m.launch(m.copy, copy_blocks, 256, copy_args);
            s.launch_end();
            ++copies;
        } else {
            m.launch(m.copy, copy_blocks, 256, copy_args);
        }
        if (s.launch_begin("ktune_fma", 2 * it + 1, 0, false, "fma")) {
            m.launch(m.fma, 1024, 256, fma_args);
            s.launch_end();
            ++fmas;
        } else {
            m.launch(m.fma, 1024, 256, fma_args);
        }
    }
    const auto doc = s.finish();
    std::printf("launches mode: %zu copy launches, %zu fma launches profiled, %zu passes, %zu "
                "kernels, %llu incomplete\n",
                copies, fmas, set.passes, doc.kernels.size(),
                static_cast<unsigned long long>(doc.incomplete_kernels));
    CHECK(copies == set.passes); // one sample per kernel: one launch per pass
    CHECK(fmas == set.passes);
    REQUIRE(doc.kernels.size() == 2);
    CHECK(doc.replay == "launches");
    CHECK(doc.range == "user");
    CHECK(doc.incomplete_kernels == 0);
    CHECK(doc.kernels[0].pass_launches == set.passes);
    const auto& copy = doc.kernels[0].values;
    const auto& fma = doc.kernels[1].values;
    const double bytes = double(n4) * 16;
    std::printf("copy (launches): %.0f ns, DRAM read %.0f, write %.0f (expected %.0f each)\n",
                copy.at("gpu__time_duration.sum"), copy.at("dram__bytes_read.sum"),
                copy.at("dram__bytes_write.sum"), bytes);
    CHECK(copy.at("dram__bytes_read.sum") == Approx(bytes).epsilon(0.05));
    // Without a flush before the range (none here), writes are those of the copy, plus at most
    // one L2 of dirty lines left by earlier launches and minus those still in L2 at the pop.
    int l2 = 0;
    KTUNE_CUDA_CALL(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    CHECK(copy.at("dram__bytes_write.sum") <= bytes + double(l2));
    CHECK(copy.at("dram__bytes_write.sum") >= bytes - double(l2));
    const double ffma = 1024.0 * 256 * iters;
    std::printf("fma (launches): FFMA %.0f (expected %.0f)\n",
                fma.at("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"), ffma);
    CHECK(fma.at("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum") ==
          Approx(ffma).epsilon(0.001));
}

TEST_CASE("measured peaks are near the datasheet") {
    const auto q = ktune::query_devices();
    const auto m = measure_device(0);
    for (const auto& r : m.rates)
        std::printf("%-10s median %.1f %s (%.1f..%.1f, %d runs) %s %s\n", r.what.c_str(), r.median,
                    r.unit.c_str(), r.min, r.max, r.repeats, r.detail.c_str(), r.error.c_str());
    const auto spec = ktune::find_gpu_peaks(q.devices.front().name);
    REQUIRE(spec.has_value());
    CHECK(m.peaks.dram_gbs > 0.5 * spec->dram_gbs);
    CHECK(m.peaks.dram_gbs < 1.05 * spec->dram_gbs);
    CHECK(m.peaks.fp32_tflops > 0.5 * spec->fp32_tflops);
    CHECK(m.peaks.fp32_tflops < 1.1 * spec->fp32_tflops);
    CHECK(m.peaks.bf16_tensor_tflops > 0.3 * spec->fp16_tensor_tflops);
    CHECK(m.peaks.bf16_tensor_tflops < 1.05 * spec->fp16_tensor_tflops);
}
