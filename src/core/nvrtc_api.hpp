#pragma once
// NVRTC, opened on first use: only compiling a candidate needs it, and mapping it costs every
// ktune process ~30 MB (docs/perf/startup.md), so it is no link dependency.
//
//   const auto& rtc = ktune::detail::nvrtc();   // throws where libnvrtc is absent
//   rtc.nvrtcVersion(&major, &minor);
#include <nvrtc.h>

namespace ktune::detail {

/// The NVRTC entry points ktune calls, named as in nvrtc.h.
struct nvrtc_api {
    decltype(&::nvrtcVersion) nvrtcVersion = nullptr;
    decltype(&::nvrtcGetErrorString) nvrtcGetErrorString = nullptr;
    decltype(&::nvrtcCreateProgram) nvrtcCreateProgram = nullptr;
    decltype(&::nvrtcDestroyProgram) nvrtcDestroyProgram = nullptr;
    decltype(&::nvrtcAddNameExpression) nvrtcAddNameExpression = nullptr;
    decltype(&::nvrtcCompileProgram) nvrtcCompileProgram = nullptr;
    decltype(&::nvrtcGetProgramLogSize) nvrtcGetProgramLogSize = nullptr;
    decltype(&::nvrtcGetProgramLog) nvrtcGetProgramLog = nullptr;
    decltype(&::nvrtcGetCUBINSize) nvrtcGetCUBINSize = nullptr;
    decltype(&::nvrtcGetCUBIN) nvrtcGetCUBIN = nullptr;
    decltype(&::nvrtcGetLoweredName) nvrtcGetLoweredName = nullptr;
};

/// Loads libnvrtc.so.<CUDA major> once per process (thread-safe); throws error_kind::unsupported
/// naming the library where it or a symbol is missing.
const nvrtc_api& nvrtc();

} // namespace ktune::detail
