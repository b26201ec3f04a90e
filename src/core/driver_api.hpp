#pragma once
// The driver API without linking libcuda: entry points are resolved through cudart
// (cudaGetDriverEntryPointByVersion), so every ktune binary loads on a machine with no driver.
//
//   auto* load = ktune::detail::driver_fn<decltype(&cuModuleLoadData)>("cuModuleLoadData");

#include <string>
#include <string_view>

namespace ktune::detail {

/// The driver function `symbol` for the CUDA 12.0 ABI, or nullptr where no driver is present.
void* driver_symbol(const char* symbol) noexcept;

template <class Fn>
Fn driver_fn(const char* symbol) noexcept {
    return reinterpret_cast<Fn>(driver_symbol(symbol));
}

/// "CUDA_ERROR_OUT_OF_MEMORY" for a CUresult, through cuGetErrorName when a driver is present.
std::string driver_error_name(int code);

/// Throws error{no_device}: "<who>: the CUDA driver has no <symbol> (no driver installed?)".
[[noreturn]] void throw_no_driver_symbol(std::string_view who, const char* symbol);

/// driver_fn, or throw_no_driver_symbol where no driver has it.
template <class Fn>
Fn need_driver_fn(std::string_view who, const char* symbol) {
    auto f = driver_fn<Fn>(symbol);
    if (!f) throw_no_driver_symbol(who, symbol);
    return f;
}

/// Unless `code` is CUDA_SUCCESS, throws error{cuda}: "[<who>: ]<call> (<what>): <error name>",
/// the call's context in the message (KTUNE_CU_CALL names only the expression).
void check_driver(int code, std::string_view who, const char* call, std::string_view what);

} // namespace ktune::detail
