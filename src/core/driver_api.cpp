#include "core/driver_api.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

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

} // namespace ktune::detail
