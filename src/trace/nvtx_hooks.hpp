#pragma once
// NVTX through ktune's own injection: `ktune profile` points NVTX_INJECTION64_PATH at
// libktune_inject.so, whose InitializeInjectionNvtx2 installs these handlers into NVTX's callback
// tables. No CUPTI MARKER activity is enabled (it costs every launch of every program, NVTX or
// not). A program that never calls NVTX never reaches this code.
//
// Each thread keeps its stack of open push/pop ranges. At the first push, the session turns on
// CUPTI callbacks at the entry of the launch APIs only (kernel, cooperative, graph launches);
// launch_callback then links the launch's correlation id to the innermost open range of the
// launching thread, and the collector stamps that range into the kernel's record.
#include <cupti.h>

#include <cstdint>

namespace ktune::trace::detail {

class collector;

/// Where NVTX events and launch links go; null when no session is recording.
void set_nvtx_target(collector* c) noexcept;

/// Installs the handlers; `get_export_table` is the NvtxGetExportTableFunc_t that NVTX passes to
/// InitializeInjectionNvtx2. Returns 1 on success, 0 when NVTX's tables are not usable.
int install_nvtx_hooks(const void* get_export_table) noexcept;

// The handlers behind nvtxRangePushA / nvtxRangePop / nvtxMarkA (tests call them directly).
void nvtx_push(const char* message) noexcept;
void nvtx_pop() noexcept;
void nvtx_mark(const char* message) noexcept;

/// CUPTI subscriber callback (the session subscribes with it).
void CUPTIAPI launch_callback(void* user, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                              const void* data);

} // namespace ktune::trace::detail
