#include "core/driver_api.hpp"

#include "ktune/core/error.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

namespace ktune::detail {

void* driver_symbol(const char* symbol) noexcept {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult status{};
    if (cudaGetDriverEntryPointByVersion(symbol, &fn, 12000, cudaEnableDefault, &status) !=
            cudaSuccess ||
        status != cudaDriverEntryPointSuccess)
        return nullptr;
    return fn;
}

std::string driver_error_name(int code) {
    using get_name_t = CUresult (*)(CUresult, const char**);
    if (auto* get_name = driver_fn<get_name_t>("cuGetErrorName")) {
        const char* name = nullptr;
        if (get_name(static_cast<CUresult>(code), &name) == CUDA_SUCCESS && name) return name;
    }
    return "CUresult " + std::to_string(code);
}

void throw_no_driver_symbol(std::string_view who, const char* symbol) {
    throw error(error_kind::no_device,
                fmt::format("{}: the CUDA driver has no {} (no driver installed?)", who, symbol));
}

void check_driver(int code, std::string_view who, const char* call, std::string_view what) {
    if (code == CUDA_SUCCESS) return;
    const std::string where = who.empty() ? std::string() : fmt::format("{}: ", who);
    throw error(error_kind::cuda,
                fmt::format("{}{} ({}): {}", where, call, what, driver_error_name(code)));
}

} // namespace ktune::detail
