#include "core/cublaslt_api.hpp"

#include "core/shared_library.hpp"

namespace ktune::detail {
namespace {

void resolve(const shared_library& lib, cublaslt_api& a) {
    KTUNE_RESOLVE(lib, a, cublasLtCreate);
    KTUNE_RESOLVE(lib, a, cublasLtDestroy);
    KTUNE_RESOLVE(lib, a, cublasLtGetStatusName);
    KTUNE_RESOLVE(lib, a, cublasLtMatmulDescCreate);
    KTUNE_RESOLVE(lib, a, cublasLtMatmulDescDestroy);
    KTUNE_RESOLVE(lib, a, cublasLtMatmulDescSetAttribute);
    KTUNE_RESOLVE(lib, a, cublasLtMatrixLayoutCreate);
    KTUNE_RESOLVE(lib, a, cublasLtMatrixLayoutDestroy);
    KTUNE_RESOLVE(lib, a, cublasLtMatmulPreferenceCreate);
    KTUNE_RESOLVE(lib, a, cublasLtMatmulPreferenceDestroy);
    KTUNE_RESOLVE(lib, a, cublasLtMatmulPreferenceSetAttribute);
    KTUNE_RESOLVE(lib, a, cublasLtMatmulAlgoGetHeuristic);
    KTUNE_RESOLVE(lib, a, cublasLtMatmul);
    KTUNE_RESOLVE(lib, a, cublasLtGetVersion);
    KTUNE_RESOLVE(lib, a, cublasLtMatmulAlgoGetIds);
    KTUNE_RESOLVE(lib, a, cublasLtMatmulAlgoInit);
    KTUNE_RESOLVE(lib, a, cublasLtMatmulAlgoCapGetAttribute);
    KTUNE_RESOLVE(lib, a, cublasLtMatmulAlgoConfigSetAttribute);
    KTUNE_RESOLVE(lib, a, cublasLtMatmulAlgoConfigGetAttribute);
    KTUNE_RESOLVE(lib, a, cublasLtMatmulAlgoCheck);
}

} // namespace

const cublaslt_api& cublaslt() {
    // The soname of the cuBLASLt this build's headers describe: another major has another ABI.
    return ktune::detail::load_once<cublaslt_api>(
        {"libcublasLt.so." KTUNE_STRINGIFY(CUBLAS_VER_MAJOR)}, "cuBLASLt",
        "Install the CUDA Toolkit's cuBLAS component (libcublasLt) or put its directory on "
        "LD_LIBRARY_PATH.",
        resolve);
}

} // namespace ktune::detail
