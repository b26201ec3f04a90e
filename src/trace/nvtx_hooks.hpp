#pragma once
// NVTX through ktune's own injection: `ktune profile` points NVTX_INJECTION64_PATH at
// libktune_inject.so, whose InitializeInjectionNvtx2 installs these handlers into NVTX's callback
// tables. No CUPTI MARKER activity is enabled (it costs every launch of every program, NVTX or
// not). A program that never calls NVTX never reaches this code.
//
// Each thread keeps its stack of open push/pop ranges. At the first push, the collector turns
// on the launch links (launch_links.hpp): by default CUPTI launch callbacks (launch_callback)
// into a per-thread ring, so that the kernel's record can be stamped with the innermost range
// open on the launching thread.
#include <cupti.h>

#include <cstdint>
#include <functional>

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

struct launch_link;
/// Hands every launching thread's pending links (link_mode::callback) to `f`.
void drain_launch_links(const std::function<void(const launch_link&)>& f);

/// CUPTI subscriber callback (the session subscribes with it).
void CUPTIAPI launch_callback(void* user, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                              const void* data);

} // namespace ktune::trace::detail
