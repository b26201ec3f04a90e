#include "gemm/own_module.hpp"

#include "core/driver_api.hpp"
#include "ktune/compile/compile.hpp"
#include "ktune/core/error.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <utility>

namespace ktune::gemm::detail {
namespace {

template <class Fn>
Fn need(const char* symbol) {
    return ktune::detail::need_driver_fn<Fn>("ktune GEMM kernel", symbol);
}

} // namespace

own_module::own_module(const std::string& source, const char* kernel_name, const std::string& arch,
                       std::size_t shared_bytes, const std::string& who) {
    compile::compile_request req;
    req.source = source;
    req.name_expression = kernel_name;
    req.arch = arch;
    const compile::cubin_cache cache(compile::cubin_cache::default_dir());
    const compile::compile_result r = compile::compile_cached(req, &cache);
    if (!r.ok) throw error(error_kind::nvrtc, fmt::format("{}: NVRTC failed:\n{}", who, r.log));
    const auto check = [&](CUresult rc, const char* call, std::string_view what) {
        ktune::detail::check_driver(rc, who.c_str(), call, what);
    };
    auto load = need<decltype(&cuModuleLoadData)>("cuModuleLoadData");
    auto get = need<decltype(&cuModuleGetFunction)>("cuModuleGetFunction");
    auto set_attr = need<decltype(&cuFuncSetAttribute)>("cuFuncSetAttribute");
    check(load(&module_, r.cubin.data()), "cuModuleLoadData", who);
    try {
        check(get(&function_, module_, r.lowered_name.c_str()), "cuModuleGetFunction",
              r.lowered_name);
        check(set_attr(function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                       static_cast<int>(shared_bytes)),
              "cuFuncSetAttribute", fmt::format("{} bytes of shared memory", shared_bytes));
    } catch (...) {
        (void)need<decltype(&cuModuleUnload)>("cuModuleUnload")(module_);
        throw;
    }
}

own_module::~own_module() {
    if (!module_) return;
    try {
        (void)need<decltype(&cuModuleUnload)>("cuModuleUnload")(module_);
    } catch (...) { // the driver went away: nothing left to unload into
    }
}

own_module::own_module(own_module&& o) noexcept
    : module_(std::exchange(o.module_, nullptr)), function_(std::exchange(o.function_, nullptr)) {}

own_module& own_module::operator=(own_module&& o) noexcept {
    if (this != &o) {
        own_module gone(std::move(*this));
        module_ = std::exchange(o.module_, nullptr);
        function_ = std::exchange(o.function_, nullptr);
    }
    return *this;
}

std::optional<device_limits> device_limits_here() noexcept {
    int dev = 0, major = 0, minor = 0, sms = 0, shared = 0, mem_khz = 0, bus_bits = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) !=
            cudaSuccess) {
        (void)cudaGetLastError();
        return std::nullopt;
    }
    return device_limits{10 * major + minor, sms, static_cast<std::size_t>(shared), mem_khz,
                         bus_bits};
}

void check_problem(const std::string& who, const std::string& why_not, const kernel_form& form,
                   const problem& p) {
    if (!why_not.empty())
        throw error(error_kind::input, fmt::format("{} on {}: {}", who, describe(p), why_not));
    if (!(kernel_form_of(p) == form))
        throw error(error_kind::input,
                    fmt::format("{} compiled for {} {}, called on {}", who, to_string(form.type),
                                to_string(form.epi), describe(p)));
}

void throw_missing_bias(const std::string& who, const problem& p) {
    throw error(error_kind::input,
                fmt::format("{} on {}: the epilogue needs a bias", who, describe(p)));
}

} // namespace ktune::gemm::detail
