#pragma once
// The driver API without linking libcuda: entry points are resolved through cudart
// (cudaGetDriverEntryPointByVersion), so every ktune binary loads on a machine with no driver.
//
//   auto* load = ktune::detail::driver_fn<decltype(&cuModuleLoadData)>("cuModuleLoadData");

#include <string>

namespace ktune::detail {

/// The driver function `symbol` for the CUDA 12.0 ABI, or nullptr where no driver is present.
void* driver_symbol(const char* symbol) noexcept;

template <class Fn>
Fn driver_fn(const char* symbol) noexcept {
    return reinterpret_cast<Fn>(driver_symbol(symbol));
}

/// "CUDA_ERROR_OUT_OF_MEMORY" for a CUresult, through cuGetErrorName when a driver is present.
std::string driver_error_name(int code);

} // namespace ktune::detail
