#include "ktune/core/error.hpp"
#include "core/driver_api.hpp"
#include "ktune/core/check.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cstdio>

namespace ktune {

std::string_view to_string(error_kind kind) noexcept {
    switch (kind) {
    case error_kind::usage:
        return "usage";
    case error_kind::input:
        return "input";
    case error_kind::io:
        return "io";
    case error_kind::not_found:
        return "not_found";
    case error_kind::unsupported:
        return "unsupported";
    case error_kind::no_device:
        return "no_device";
    case error_kind::cuda:
        return "cuda";
    case error_kind::nvrtc:
        return "nvrtc";
    case error_kind::cupti:
        return "cupti";
    case error_kind::timeout:
        return "timeout";
    case error_kind::internal:
        return "internal";
    }
    return "unknown";
}

namespace detail {
namespace {

std::string runtime_message(int code, const char* call, const char* file, int line) {
    const auto e = static_cast<cudaError_t>(code);
    return fmt::format("{}:{}: {} failed: {} ({}): {}", file, line, call, cudaGetErrorName(e), code,
                       cudaGetErrorString(e));
}

std::string driver_message(int code, const char* call, const char* file, int line) {
    return fmt::format("{}:{}: {} failed: {} ({})", file, line, call, driver_error_name(code),
                       code);
}

error_kind runtime_kind(int code) {
    const auto e = static_cast<cudaError_t>(code);
    return (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) ? error_kind::no_device
                                                                        : error_kind::cuda;
}

} // namespace

void throw_cuda_runtime(int code, const char* call, const char* file, int line) {
    throw error(runtime_kind(code), runtime_message(code, call, file, line));
}
void throw_cuda_driver(int code, const char* call, const char* file, int line) {
    throw error(error_kind::cuda, driver_message(code, call, file, line));
}
void log_cuda_runtime(int code, const char* call, const char* file, int line) noexcept {
    try {
        std::fprintf(stderr, "ktune: %s\n", runtime_message(code, call, file, line).c_str());
    } catch (...) {
    }
}
void log_cuda_driver(int code, const char* call, const char* file, int line) noexcept {
    try {
        std::fprintf(stderr, "ktune: %s\n", driver_message(code, call, file, line).c_str());
    } catch (...) {
    }
}

} // namespace detail
} // namespace ktune
