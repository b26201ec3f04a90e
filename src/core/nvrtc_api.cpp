#include "core/nvrtc_api.hpp"

#include "core/shared_library.hpp"

#include <cuda_runtime_api.h>

namespace ktune::detail {
namespace {

// NVRTC's soname carries the CUDA major version of the headers this build compiled against.
static_assert(CUDART_VERSION / 1000 == 13 || CUDART_VERSION / 1000 == 12,
              "add this CUDA major's NVRTC soname below");
#if CUDART_VERSION / 1000 == 13
constexpr const char* nvrtc_soname = "libnvrtc.so.13";
#else
constexpr const char* nvrtc_soname = "libnvrtc.so.12";
#endif

void resolve(const shared_library& lib, nvrtc_api& a) {
    KTUNE_RESOLVE(lib, a, nvrtcVersion);
    KTUNE_RESOLVE(lib, a, nvrtcGetErrorString);
    KTUNE_RESOLVE(lib, a, nvrtcCreateProgram);
    KTUNE_RESOLVE(lib, a, nvrtcDestroyProgram);
    KTUNE_RESOLVE(lib, a, nvrtcAddNameExpression);
    KTUNE_RESOLVE(lib, a, nvrtcCompileProgram);
    KTUNE_RESOLVE(lib, a, nvrtcGetProgramLogSize);
    KTUNE_RESOLVE(lib, a, nvrtcGetProgramLog);
    KTUNE_RESOLVE(lib, a, nvrtcGetCUBINSize);
    KTUNE_RESOLVE(lib, a, nvrtcGetCUBIN);
    KTUNE_RESOLVE(lib, a, nvrtcGetLoweredName);
}

} // namespace

const nvrtc_api& nvrtc() {
    return load_once<nvrtc_api>({nvrtc_soname}, "NVRTC",
                                "Install the CUDA Toolkit's NVRTC component (libnvrtc) or put "
                                "its directory on LD_LIBRARY_PATH.",
                                resolve);
}

} // namespace ktune::detail
