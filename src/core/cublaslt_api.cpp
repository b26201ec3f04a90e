#include "core/cublaslt_api.hpp"

#include "core/shared_library.hpp"

#define KTUNE_STR2(x) #x
#define KTUNE_STR(x) KTUNE_STR2(x)

namespace ktune::detail {
namespace {

struct loaded_cublaslt {
    ktune::detail::shared_library lib;
    cublaslt_api api;
};

loaded_cublaslt* load() {
    // The soname of the cuBLASLt this build's headers describe: another major has another ABI.
    auto lib = ktune::detail::shared_library::open(
        {"libcublasLt.so." KTUNE_STR(CUBLAS_VER_MAJOR)}, "cuBLASLt",
        "Install the CUDA Toolkit's cuBLAS component (libcublasLt) or put its directory on "
        "LD_LIBRARY_PATH.");
    cublaslt_api a;
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
    // Never freed: unloading at exit would race with CUDA's own teardown of cuBLASLt's state.
    return new loaded_cublaslt{std::move(lib), a};
}

} // namespace

const cublaslt_api& cublaslt() {
    static const loaded_cublaslt* const loaded = load();
    return loaded->api;
}

} // namespace ktune::detail
