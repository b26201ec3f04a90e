// NVTX's static injection point, defined (strongly) in this test binary: the first NVTX call of
// the process hands NVTX's export table to ktune, exactly as NVTX_INJECTION64_PATH does under
// `ktune profile`. Kept apart from any file including nvToolsExt.h, whose weak definition of the
// same symbol this one overrides.
#include "ktune/trace/session.hpp"

#include <cstdint>

namespace {
int init_nvtx(const void* (*get_export_table)(std::uint32_t)) {
    return ktune::trace::install_nvtx_injection(reinterpret_cast<const void*>(get_export_table));
}
} // namespace

extern "C" {
int (*InitializeInjectionNvtx2_fnptr)(const void* (*)(std::uint32_t)) = init_nvtx;
}
