#pragma once
// cuBLASLt, opened on first use: only `ktune device --measure` and `ktune tune gemm` need it, and
// mapping it costs ~200 MB and up to 2 s (docs/perf/startup.md), so it is no link dependency.
//
//   const auto& lt = ktune::detail::cublaslt();   // throws where it is absent
//   lt.cublasLtCreate(&handle);
#include <cublasLt.h>

namespace ktune::detail {

/// The cuBLASLt entry points ktune calls, named as in cublasLt.h.
struct cublaslt_api {
    decltype(&::cublasLtCreate) cublasLtCreate = nullptr;
    decltype(&::cublasLtDestroy) cublasLtDestroy = nullptr;
    decltype(&::cublasLtGetStatusName) cublasLtGetStatusName = nullptr;
    decltype(&::cublasLtMatmulDescCreate) cublasLtMatmulDescCreate = nullptr;
    decltype(&::cublasLtMatmulDescDestroy) cublasLtMatmulDescDestroy = nullptr;
    decltype(&::cublasLtMatmulDescSetAttribute) cublasLtMatmulDescSetAttribute = nullptr;
    decltype(&::cublasLtMatrixLayoutCreate) cublasLtMatrixLayoutCreate = nullptr;
    decltype(&::cublasLtMatrixLayoutDestroy) cublasLtMatrixLayoutDestroy = nullptr;
    decltype(&::cublasLtMatmulPreferenceCreate) cublasLtMatmulPreferenceCreate = nullptr;
    decltype(&::cublasLtMatmulPreferenceDestroy) cublasLtMatmulPreferenceDestroy = nullptr;
    decltype(&::cublasLtMatmulPreferenceSetAttribute) cublasLtMatmulPreferenceSetAttribute =
        nullptr;
    decltype(&::cublasLtMatmulAlgoGetHeuristic) cublasLtMatmulAlgoGetHeuristic = nullptr;
    decltype(&::cublasLtMatmul) cublasLtMatmul = nullptr;
    // The algorithm API of ktune tune gemm (src/gemm): enumerate, configure and check.
    decltype(&::cublasLtGetVersion) cublasLtGetVersion = nullptr;
    decltype(&::cublasLtMatmulAlgoGetIds) cublasLtMatmulAlgoGetIds = nullptr;
    decltype(&::cublasLtMatmulAlgoInit) cublasLtMatmulAlgoInit = nullptr;
    decltype(&::cublasLtMatmulAlgoCapGetAttribute) cublasLtMatmulAlgoCapGetAttribute = nullptr;
    decltype(&::cublasLtMatmulAlgoConfigSetAttribute) cublasLtMatmulAlgoConfigSetAttribute =
        nullptr;
    decltype(&::cublasLtMatmulAlgoConfigGetAttribute) cublasLtMatmulAlgoConfigGetAttribute =
        nullptr;
    decltype(&::cublasLtMatmulAlgoCheck) cublasLtMatmulAlgoCheck = nullptr;
};

/// Loads libcublasLt.so.<CUDA major> once per process (thread-safe); throws
/// error_kind::unsupported naming the library where it or a symbol is missing.
const cublaslt_api& cublaslt();

} // namespace ktune::detail
