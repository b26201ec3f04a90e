// What work a launch does, from its parameter bytes (see launch_params.hpp). The hash covers
// every argument byte, pointers included: two projections of one shape on different weights get
// two keys (two samples of equal work), which is the price of never merging different problems.
// A kernel whose arguments change on every launch (a step counter passed by value) never
// repeats a key; range_session then falls back to name and shape for it.
#include "core/fnv1a.hpp"
#include "launch_params.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <mutex>
#include <unordered_map>

namespace ktune::inject::detail {
namespace {

struct fnv1a {
    std::uint64_t h = ktune::detail::fnv1a_basis;
    void add(const void* data, std::size_t n) { h = ktune::detail::fnv1a_bytes(h, data, n); }
};

// The packed argument buffer of `extra` (CU_LAUNCH_PARAM_BUFFER_POINTER / _SIZE), if any.
bool hash_extra(void** extra, fnv1a& f) {
    if (!extra) return false;
    const void* buffer = nullptr;
    const std::size_t* size = nullptr;
    for (std::size_t i = 0; i < 64 && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
        if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) buffer = extra[i + 1];
        if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
            size = static_cast<const std::size_t*>(extra[i + 1]);
    }
    if (!buffer || !size) return false;
    f.add(size, sizeof *size);
    f.add(buffer, *size);
    return true;
}

std::uint64_t hash_args(const void* function, bool runtime, void** args, void** extra,
                        const param_sizes_fn& sizes) {
    fnv1a f;
    if (!args) return hash_extra(extra, f) ? (f.h ? f.h : 1) : 0;
    if (!sizes) return 0;
    const auto s = sizes(function, runtime);
    if (s.empty()) return 0;
    const std::size_t count = s.size();
    f.add(&count, sizeof count);
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (!args[i]) return 0;
        f.add(args[i], s[i]);
    }
    return f.h ? f.h : 1;
}

} // namespace

std::uint64_t launch_work(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params,
                          const param_sizes_fn& sizes) {
    if (!params) return 0;
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
        if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel ||
            cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz) {
            const auto* p = static_cast<const cuLaunchKernel_params*>(params);
            return hash_args(p->f, false, p->kernelParams, p->extra, sizes);
        }
        if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ||
            cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz) {
            const auto* p = static_cast<const cuLaunchKernelEx_params*>(params);
            return hash_args(p->f, false, p->kernelParams, p->extra, sizes);
        }
        return 0;
    }
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 ||
        cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000) {
        const auto* p = static_cast<const cudaLaunchKernel_v7000_params*>(params);
        return hash_args(p->func, true, p->args, nullptr, sizes);
    }
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060 ||
        cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060) {
        const auto* p = static_cast<const cudaLaunchKernelExC_v11060_params*>(params);
        return hash_args(p->func, true, p->args, nullptr, sizes);
    }
    return 0;
}

std::string launch_key(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params,
                       const param_sizes_fn& sizes) {
    std::string key = launch_shape(domain, cbid, params);
    if (key.empty()) return key;
    if (const std::uint64_t w = launch_work(domain, cbid, params, sizes)) {
        char hex[20];
        std::snprintf(hex, sizeof hex, "/w%016llx", static_cast<unsigned long long>(w));
        key += hex;
    }
    return key;
}

std::vector<std::size_t> kernel_param_sizes(const void* function, bool runtime) {
    using get_info_fn = CUresult (*)(CUfunction, std::size_t, std::size_t*, std::size_t*);
    // cuFuncGetParamInfo is a CUDA 12.4 entry point: asked for by that ABI version.
    static const get_info_fn get_info = [] {
        void* fn = nullptr;
        cudaDriverEntryPointQueryResult status{};
        if (cudaGetDriverEntryPointByVersion("cuFuncGetParamInfo", &fn, 12040, cudaEnableDefault,
                                             &status) != cudaSuccess ||
            status != cudaDriverEntryPointSuccess)
            return get_info_fn{};
        return reinterpret_cast<get_info_fn>(fn);
    }();
    if (!get_info || !function) return {};
    static std::mutex m;
    static std::unordered_map<const void*, std::vector<std::size_t>> cache;
    std::lock_guard lock(m);
    if (const auto it = cache.find(function); it != cache.end()) return it->second;
    CUfunction f = nullptr;
    if (runtime) {
        if (cudaGetFuncBySymbol(&f, function) != cudaSuccess) {
            (void)cudaGetLastError(); // leave no sticky error for the host's own check
            f = nullptr;
        }
    } else {
        f = static_cast<CUfunction>(const_cast<void*>(function));
    }
    std::vector<std::size_t> sizes;
    if (f)
        for (std::size_t i = 0; i < 4096; ++i) {
            std::size_t offset = 0, size = 0;
            if (get_info(f, i, &offset, &size) != CUDA_SUCCESS) break;
            sizes.push_back(size);
        }
    cache.emplace(function, sizes);
    return sizes;
}

} // namespace ktune::inject::detail
