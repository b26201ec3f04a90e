#include "ktune/measure/copy_bandwidth.hpp"

#include "core/driver_api.hpp"
#include "ktune/compile/compile.hpp"
#include "ktune/core/check.hpp"
#include "ktune/core/cuda_handles.hpp"
#include "ktune/core/error.hpp"
#include "ktune/measure/l2_flush.hpp"
#include "ktune/measure/sample_stats.hpp"
#include "measure/copy_kernels.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <vector>

namespace ktune::measure {
namespace detail {

const char* const copy_kernel_source = R"(
extern "C" __global__ void ktune_copy16(const uint4* __restrict__ src, uint4* __restrict__ dst,
                                        long long n16) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n16;
         i += (long long)gridDim.x * blockDim.x)
        dst[i] = src[i];
}
extern "C" __global__ void ktune_copy16_stream(const uint4* __restrict__ src,
                                               uint4* __restrict__ dst, long long n16) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n16;
         i += (long long)gridDim.x * blockDim.x)
        __stcs(dst + i, __ldcs(src + i));
}
// U loads in flight per thread before its stores (a tuned row op holds a whole row in
// registers: more bytes in flight than one 16-byte load per step can keep).
template <int U, bool STREAM>
__device__ __forceinline__ void copy_unrolled(const uint4* __restrict__ src,
                                              uint4* __restrict__ dst, long long n16) {
    const long long step = (long long)gridDim.x * U * blockDim.x;
    for (long long base = (long long)blockIdx.x * U * blockDim.x + threadIdx.x; base < n16;
         base += step) {
        uint4 v[U];
#pragma unroll
        for (int k = 0; k < U; ++k) {
            const long long i = base + (long long)k * blockDim.x;
            if (i < n16) v[k] = STREAM ? __ldcs(src + i) : src[i];
        }
#pragma unroll
        for (int k = 0; k < U; ++k) {
            const long long i = base + (long long)k * blockDim.x;
            if (i < n16) {
                if (STREAM)
                    __stcs(dst + i, v[k]);
                else
                    dst[i] = v[k];
            }
        }
    }
}
extern "C" __global__ void ktune_copy16_u4(const uint4* __restrict__ s, uint4* __restrict__ d,
                                           long long n) { copy_unrolled<4, false>(s, d, n); }
extern "C" __global__ void ktune_copy16_u4_stream(const uint4* __restrict__ s,
                                                  uint4* __restrict__ d, long long n) {
    copy_unrolled<4, true>(s, d, n);
}
extern "C" __global__ void ktune_copy16_u8(const uint4* __restrict__ s, uint4* __restrict__ d,
                                           long long n) { copy_unrolled<8, false>(s, d, n); }
extern "C" __global__ void ktune_copy16_u8_stream(const uint4* __restrict__ s,
                                                  uint4* __restrict__ d, long long n) {
    copy_unrolled<8, true>(s, d, n);
}
)";

} // namespace detail
namespace {

using launch_t = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void**, void**);

/// The module of the copy kernels, unloaded with it.
struct copy_module {
    using load_t = CUresult (*)(CUmodule*, const void*);
    using get_t = CUresult (*)(CUfunction*, CUmodule, const char*);
    using unload_t = CUresult (*)(CUmodule);
    unload_t unload = ktune::detail::driver_fn<unload_t>("cuModuleUnload");
    launch_t launch = ktune::detail::driver_fn<launch_t>("cuLaunchKernel");
    CUmodule mod = nullptr;
    CUfunction plain = nullptr, streaming = nullptr;
    /// Unrolled forms: (function, loads in flight per thread, streaming).
    struct unrolled_fn {
        CUfunction f = nullptr;
        int per_thread = 1;
        bool streaming = false;
    };
    std::vector<unrolled_fn> unrolled{
        {nullptr, 4, false}, {nullptr, 4, true}, {nullptr, 8, false}, {nullptr, 8, true}};

    explicit copy_module(const std::string& arch) {
        auto load = ktune::detail::driver_fn<load_t>("cuModuleLoadData");
        auto get = ktune::detail::driver_fn<get_t>("cuModuleGetFunction");
        if (!load || !get || !unload || !launch)
            throw error(error_kind::no_device, "the CUDA driver's module API is not available");
        // Two kernels in one program: compile_batch's namespacing is not needed, both are
        // extern "C" and found by name.
        compile::compile_request rq{detail::copy_kernel_source, "ktune_copy16", arch, {}};
        const auto c = compile::nvrtc_compile(rq);
        if (const CUresult rc = load(&mod, c.cubin.data()); rc != CUDA_SUCCESS)
            throw error(error_kind::cuda,
                        "cuModuleLoadData: " + ktune::detail::driver_error_name(rc));
        const auto find = [&](const char* name, CUfunction* fn) {
            if (const CUresult rc = get(fn, mod, name); rc != CUDA_SUCCESS)
                throw error(error_kind::cuda,
                            "cuModuleGetFunction: " + ktune::detail::driver_error_name(rc));
        };
        find("ktune_copy16", &plain);
        find("ktune_copy16_stream", &streaming);
        for (auto& u : unrolled)
            find(fmt::format("ktune_copy16_u{}{}", u.per_thread, u.streaming ? "_stream" : "")
                     .c_str(),
                 &u.f);
    }
    ~copy_module() {
        if (mod) unload(mod);
    }
    copy_module(const copy_module&) = delete;
    copy_module& operator=(const copy_module&) = delete;
};

struct form {
    std::string name;
    std::function<void(cudaStream_t)> copy;
};

} // namespace

copy_bandwidth measure_copy_bandwidth(std::size_t bytes) {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess)
        throw error(error_kind::no_device, "no CUDA GPU to measure the copy bandwidth of");
    cudaDeviceProp prop{};
    KTUNE_CUDA_CALL(cudaGetDeviceProperties(&prop, device));
    std::size_t free_b = 0, total_b = 0;
    KTUNE_CUDA_CALL(cudaMemGetInfo(&free_b, &total_b));
    if (bytes == 0) bytes = std::min<std::size_t>(std::size_t{512} << 20, free_b / 4);
    bytes &= ~std::size_t{255};
    if (bytes == 0) throw error(error_kind::cuda, "no device memory free for the copy roof");
    device_buffer src(bytes), dst(bytes);
    cuda_stream s;
    cuda_event e0, e1;
    KTUNE_CUDA_CALL(cudaMemsetAsync(src.data(), 1, bytes, s.get()));
    l2_flusher flush;
    const copy_module m(fmt::format("sm_{}{}", prop.major, prop.minor));

    void* src_p = src.data();
    void* dst_p = dst.data();
    long long n16 = static_cast<long long>(bytes / 16);
    std::vector<form> forms;
    forms.push_back({"cudaMemcpy D2D", [&](cudaStream_t st) {
                         KTUNE_CUDA_CALL(
                             cudaMemcpyAsync(dst_p, src_p, bytes, cudaMemcpyDeviceToDevice, st));
                     }});
    // One copy kernel on `blocks` blocks of 256 threads.
    const auto kernel_form = [&](std::string name, CUfunction f, unsigned blocks) {
        forms.push_back(
            {std::move(name), [&m, f, blocks, &src_p, &dst_p, &n16](cudaStream_t st) {
                 void* args[] = {&src_p, &dst_p, &n16};
                 if (const CUresult rc = m.launch(f, blocks, 1, 1, 256, 1, 1, 0,
                                                  reinterpret_cast<CUstream>(st), args, nullptr);
                     rc != CUDA_SUCCESS)
                     throw error(error_kind::cuda,
                                 "cuLaunchKernel: " + ktune::detail::driver_error_name(rc));
             }});
    };
    const auto per_sm_blocks = [&](int per_sm) {
        return static_cast<unsigned>(prop.multiProcessorCount * per_sm);
    };
    for (CUfunction f : {m.plain, m.streaming})
        for (int per_sm : {2, 4, 8})
            kernel_form(fmt::format("kernel 16 B/thread, {}, {} blocks/SM",
                                    f == m.plain ? "plain" : "streaming", per_sm),
                        f, per_sm_blocks(per_sm));
    // Unrolled: one pass (a block per tile, as the tuned ops launch) and grid-stride at 4 and 8
    // blocks per SM.
    for (const auto& u : m.unrolled) {
        const long long tile = 256LL * u.per_thread;
        for (int per_sm : {0, 4, 8})
            kernel_form(fmt::format("kernel {} x 16 B/thread, {}, {}", u.per_thread,
                                    u.streaming ? "streaming" : "plain",
                                    per_sm == 0 ? std::string("one pass")
                                                : fmt::format("{} blocks/SM", per_sm)),
                        u.f,
                        per_sm == 0 ? static_cast<unsigned>((n16 + tile - 1) / tile)
                                    : per_sm_blocks(per_sm));
    }

    copy_bandwidth best;
    best.bytes = bytes;
    constexpr int warmup = 2, repeats = 10;
    for (const auto& f : forms) {
        std::vector<double> gbs;
        for (int i = 0; i < warmup + repeats; ++i) {
            flush.enqueue(s.get()); // outside the events, like every candidate's launch
            KTUNE_CUDA_CALL(cudaEventRecord(e0.get(), s.get()));
            f.copy(s.get());
            KTUNE_CUDA_CALL(cudaEventRecord(e1.get(), s.get()));
            KTUNE_CUDA_CALL(cudaEventSynchronize(e1.get()));
            float ms = 0;
            KTUNE_CUDA_CALL(cudaEventElapsedTime(&ms, e0.get(), e1.get()));
            if (i >= warmup) gbs.push_back(2.0 * static_cast<double>(bytes) / (ms * 1e6));
        }
        const double med = median(gbs);
        if (med > best.median_gbs) {
            best.median_gbs = med;
            best.min_gbs = *std::ranges::min_element(gbs);
            best.max_gbs = *std::ranges::max_element(gbs);
            best.repeats = repeats;
            best.form = f.name;
        }
    }
    return best;
}

} // namespace ktune::measure
