#pragma once
// Check macros for the CUDA runtime and driver APIs. They take the call's result as an int so
// this header needs no CUDA header; the throwing functions are out of line (cold path).
//
//   KTUNE_CUDA_CALL(cudaMalloc(&p, n));          // throws ktune::error{cuda} with file:line
//   KTUNE_CUDA_CALL_NOEXCEPT(cudaFree(p));       // logs to stderr, for destructors
//
// NVRTC and CUPTI macros live in src/core/check_private.hpp: public headers never see them.

namespace ktune::detail {
[[noreturn]] void throw_cuda_runtime(int code, const char* call, const char* file, int line);
[[noreturn]] void throw_cuda_driver(int code, const char* call, const char* file, int line);
void log_cuda_runtime(int code, const char* call, const char* file, int line) noexcept;
void log_cuda_driver(int code, const char* call, const char* file, int line) noexcept;
} // namespace ktune::detail

#define KTUNE_CUDA_CALL(expr)                                                                      \
    do {                                                                                           \
        if (const int ktune_rc_ = static_cast<int>(expr); ktune_rc_ != 0)                          \
            ::ktune::detail::throw_cuda_runtime(ktune_rc_, #expr, __FILE__, __LINE__);             \
    } while (0)

#define KTUNE_CUDA_CALL_NOEXCEPT(expr)                                                             \
    do {                                                                                           \
        if (const int ktune_rc_ = static_cast<int>(expr); ktune_rc_ != 0)                          \
            ::ktune::detail::log_cuda_runtime(ktune_rc_, #expr, __FILE__, __LINE__);               \
    } while (0)

#define KTUNE_CU_CALL(expr)                                                                        \
    do {                                                                                           \
        if (const int ktune_rc_ = static_cast<int>(expr); ktune_rc_ != 0)                          \
            ::ktune::detail::throw_cuda_driver(ktune_rc_, #expr, __FILE__, __LINE__);              \
    } while (0)

#define KTUNE_CU_CALL_NOEXCEPT(expr)                                                               \
    do {                                                                                           \
        if (const int ktune_rc_ = static_cast<int>(expr); ktune_rc_ != 0)                          \
            ::ktune::detail::log_cuda_driver(ktune_rc_, #expr, __FILE__, __LINE__);                \
    } while (0)
