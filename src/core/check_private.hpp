#pragma once
// Check macros for the C APIs that public headers must never see (NVRTC, CUPTI). Include only
// from src/. The NVRTC variant attaches the compile log, the first thing anyone asks for.
//
//   KTUNE_NVRTC_CALL(nvrtc().nvrtcCompileProgram(prog, n, opts), prog);
//   KTUNE_CUPTI_CALL(cuptiActivityFlushAll(0));

#include "ktune/core/error.hpp"

#include "core/nvrtc_api.hpp"

#include <cupti.h>

#include <cstdio>
#include <string>

namespace ktune::detail {

inline std::string nvrtc_log(nvrtcProgram prog) {
    std::size_t n = 0;
    if (!prog || nvrtc().nvrtcGetProgramLogSize(prog, &n) != NVRTC_SUCCESS || n <= 1) return {};
    std::string log(n, '\0');
    if (nvrtc().nvrtcGetProgramLog(prog, log.data()) != NVRTC_SUCCESS) return {};
    log.resize(n - 1);
    return log;
}

[[noreturn]] inline void throw_nvrtc(nvrtcResult rc, nvrtcProgram prog, const char* call,
                                     const char* file, int line) {
    std::string msg = std::string(file) + ":" + std::to_string(line) + ": " + call +
                      " failed: " + nvrtc().nvrtcGetErrorString(rc);
    if (auto log = nvrtc_log(prog); !log.empty()) msg += "\ncompile log:\n" + log;
    throw error(error_kind::nvrtc, msg);
}

inline std::string cupti_message(CUptiResult rc, const char* call, const char* file, int line) {
    const char* s = nullptr;
    if (cuptiGetResultString(rc, &s) != CUPTI_SUCCESS || !s) s = "unknown CUPTI error";
    return std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " + s + " (" +
           std::to_string(static_cast<int>(rc)) + ")";
}

} // namespace ktune::detail

#define KTUNE_NVRTC_CALL(expr, prog)                                                               \
    do {                                                                                           \
        if (const nvrtcResult ktune_rc_ = (expr); ktune_rc_ != NVRTC_SUCCESS)                      \
            ::ktune::detail::throw_nvrtc(ktune_rc_, prog, #expr, __FILE__, __LINE__);              \
    } while (0)

#define KTUNE_CUPTI_CALL(expr)                                                                     \
    do {                                                                                           \
        if (const CUptiResult ktune_rc_ = (expr); ktune_rc_ != CUPTI_SUCCESS)                      \
            throw ::ktune::error(                                                                  \
                ::ktune::error_kind::cupti,                                                        \
                ::ktune::detail::cupti_message(ktune_rc_, #expr, __FILE__, __LINE__));             \
    } while (0)

// Inside a profiled process nothing may throw into the host: log and report failure.
#define KTUNE_CUPTI_CALL_NOEXCEPT(expr)                                                            \
    ([&]() noexcept -> bool {                                                                      \
        const CUptiResult ktune_rc_ = (expr);                                                      \
        if (ktune_rc_ == CUPTI_SUCCESS) return true;                                               \
        try {                                                                                      \
            std::fprintf(                                                                          \
                stderr, "ktune: %s\n",                                                             \
                ::ktune::detail::cupti_message(ktune_rc_, #expr, __FILE__, __LINE__).c_str());     \
        } catch (...) {                                                                            \
        }                                                                                          \
        return false;                                                                              \
    }())
