// Kernel -> NVTX range links of the collector (see launch_links.hpp for the three ways). All of
// it runs on CUPTI's buffer thread except open_range/close_range (the NVTX handlers) and
// link_launch with link_mode::locked_map.
#include "collector.hpp"

namespace ktune::trace::detail {
namespace {

// The launch APIs whose launches can carry a range: kernels, cooperative kernels, graphs.
constexpr CUpti_CallbackId runtime_launches[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000};
constexpr CUpti_CallbackId driver_launches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz};

} // namespace

void collector::enable_launch_links() noexcept {
    if (launch_links_on_.exchange(true)) return;
    if (options_.link == link_mode::external_correlation) {
        // Records of the launch APIs only (not CUPTI_ACTIVITY_KIND_RUNTIME/DRIVER: every API
        // call would write one). The external correlation record precedes the API record.
        links_on_ns_ = now();
        api_.enable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
        bool ok = true;
        for (const auto id : runtime_launches)
            ok = api_.enable_api_record(CUPTI_CB_DOMAIN_RUNTIME_API, id, true) == CUPTI_SUCCESS &&
                 ok;
        if (options_.driver_api_records)
            for (const auto id : driver_launches)
                ok =
                    api_.enable_api_record(CUPTI_CB_DOMAIN_DRIVER_API, id, true) == CUPTI_SUCCESS &&
                    ok;
        if (!ok) {
            // A CUPTI without per-API selection: every API call writes a record then (slower,
            // still correct).
            api_.enable(CUPTI_ACTIVITY_KIND_RUNTIME);
            api_.enable(CUPTI_ACTIVITY_KIND_DRIVER);
        }
        has_links_.store(true, std::memory_order_release);
        return;
    }
    // Callbacks: the runtime's exit too (link_mode::callback uses it to know when the nested
    // driver call is over); CUPTI enables entry and exit together anyway.
    for (const auto id : runtime_launches)
        api_.enable_callback(CUPTI_CB_DOMAIN_RUNTIME_API, id);
    for (const auto id : driver_launches)
        api_.enable_callback(CUPTI_CB_DOMAIN_DRIVER_API, id);
}

void collector::stop_launch_links() noexcept {
    // After recording stops, a program inside ranges should not keep paying for API records.
    if (options_.link != link_mode::external_correlation || !launch_links_on_.load()) return;
    api_.disable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
    for (const auto id : runtime_launches)
        api_.enable_api_record(CUPTI_CB_DOMAIN_RUNTIME_API, id, false);
    for (const auto id : driver_launches)
        api_.enable_api_record(CUPTI_CB_DOMAIN_DRIVER_API, id, false);
    api_.disable(CUPTI_ACTIVITY_KIND_RUNTIME);
    api_.disable(CUPTI_ACTIVITY_KIND_DRIVER);
}

bool collector::open_range(std::uint32_t range, std::uint32_t path) noexcept {
    enable_launch_links();
    if (options_.link != link_mode::external_correlation) return false;
    return api_.push_external(pack_range(range, path)) == CUPTI_SUCCESS;
}

void collector::close_range() noexcept {
    api_.pop_external();
}

void collector::link_launch(std::uint32_t correlation, std::uint32_t range,
                            std::uint32_t path) noexcept {
    try {
        std::lock_guard lock(link_mutex_);
        links_[correlation] = {range, path};
        has_links_.store(true, std::memory_order_relaxed);
    } catch (...) {
    }
}

void collector::on_link_record(const CUpti_Activity* a) {
    // Both structs have kept their layout since CUDA 8 (no versioned successor).
    if (a->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
        const auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(a);
        if (e->externalKind != CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) return;
        const auto l = unpack_range(e->correlationId, e->externalId);
        link_launch(l.correlation, l.range, l.path);
        return;
    }
    // The launch's API record: its external correlation record, if any, came just before.
    const auto* api = reinterpret_cast<const CUpti_ActivityAPI*>(a);
    std::lock_guard lock(link_mutex_);
    links_.try_emplace(api->correlationId, 0u, 0u);
}

bool collector::attach_range(kernel_record& r) {
    std::lock_guard lock(link_mutex_);
    const auto it = links_.find(r.correlation);
    if (it == links_.end()) {
        // With external correlation a kernel may complete before the buffer holding its
        // launch's records does: wait for it, unless it was launched before records began.
        return options_.link != link_mode::external_correlation || !r.timed() ||
               r.start_ns < links_on_ns_;
    }
    r.nvtx_range = it->second.first;
    r.nvtx_path = it->second.second;
    // Graph kernels share their launch's correlation id: keep the link for the siblings, and
    // drop links far behind this one (launches whose kernels never come: nested driver calls,
    // failed launches).
    constexpr std::uint32_t window = 1u << 16; // launches in flight stay far below this
    if (r.correlation > window && links_.size() > 4096)
        links_.erase(links_.begin(), links_.lower_bound(r.correlation - window));
    return true;
}

void collector::release_waiting(bool all) {
    std::deque<kernel_record> still;
    for (auto& k : waiting_) {
        if (attach_range(k) || all)
            stage_kernel(k);
        else
            still.push_back(k);
    }
    waiting_.swap(still);
}

} // namespace ktune::trace::detail
