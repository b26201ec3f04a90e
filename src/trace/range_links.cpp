// Kernel -> NVTX range links of the collector (see launch_links.hpp for the three ways). All of
// it runs on CUPTI's buffer thread except open_range/close_range (the NVTX handlers) and
// link_launch with link_mode::locked_map.
#include "collector.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>

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

void set_launch_callbacks(cupti_api& api, bool on) noexcept {
    for (const auto id : runtime_launches)
        api.enable_callback(CUPTI_CB_DOMAIN_RUNTIME_API, id, on);
    for (const auto id : driver_launches)
        api.enable_callback(CUPTI_CB_DOMAIN_DRIVER_API, id, on);
}

} // namespace

bool collector::fall_back_to_callbacks() noexcept {
    if (options_.link != link_mode::window || fell_back_.exchange(true)) return false;
    set_launch_callbacks(api_, true);
    return true;
}

void collector::enable_launch_links() noexcept {
    if (launch_links_on_.exchange(true)) return;
    if (options_.link == link_mode::external_correlation) {
        // Run 4 on the H200 saw no kernel attributed with the launch APIs' records turned on
        // through cuptiActivityEnableRuntimeApi/DriverApi alone. NVIDIA's own users of external
        // correlation (e.g. cuPHY's cupti_helper) turn on the RUNTIME and DRIVER kinds, then
        // turn every other API off one by one (the kind overrides per-API settings made before
        // it): done so here, once, at the first range. Not yet run on a GPU this way.
        links_on_ns_ = now();
        api_.enable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
        api_.enable(CUPTI_ACTIVITY_KIND_RUNTIME);
        api_.enable(CUPTI_ACTIVITY_KIND_DRIVER);
        const auto keep = [](const auto& list, CUpti_CallbackId id) {
            for (const auto l : list)
                if (l == id) return true;
            return false;
        };
        for (CUpti_CallbackId id = 1; id < CUPTI_RUNTIME_TRACE_CBID_SIZE; ++id)
            if (!keep(runtime_launches, id))
                api_.enable_api_record(CUPTI_CB_DOMAIN_RUNTIME_API, id, false);
        for (CUpti_CallbackId id = 1; id < CUPTI_DRIVER_TRACE_CBID_SIZE; ++id)
            if (!keep(driver_launches, id) || !options_.driver_api_records)
                api_.enable_api_record(CUPTI_CB_DOMAIN_DRIVER_API, id, false);
        has_links_.store(true, std::memory_order_release);
        return;
    }
    if (options_.link == link_mode::window) {
        // Only the marker's callback: nothing of CUPTI's or ktune's runs per launch.
        api_.enable_callback(CUPTI_CB_DOMAIN_DRIVER_API,
                             CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion);
        has_links_.store(true, std::memory_order_release);
        return;
    }
    // Callbacks: the runtime's exit too (link_mode::callback uses it to know when the nested
    // driver call is over); CUPTI enables entry and exit together anyway.
    set_launch_callbacks(api_, true);
}

void collector::stop_launch_links() noexcept {
    // After recording stops (--duration), a program inside ranges should not keep paying for
    // API records or launch callbacks.
    if (!launch_links_on_.load()) return;
    switch (options_.link) {
    case link_mode::external_correlation:
        api_.disable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
        api_.disable(CUPTI_ACTIVITY_KIND_RUNTIME);
        api_.disable(CUPTI_ACTIVITY_KIND_DRIVER);
        break;
    case link_mode::window:
        api_.enable_callback(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion,
                             false);
        if (fell_back_.load()) set_launch_callbacks(api_, false);
        break;
    case link_mode::callback:
    case link_mode::locked_map:
        set_launch_callbacks(api_, false);
        break;
    }
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

void collector::take_link(const launch_link& l) noexcept {
    if (options_.link != link_mode::window) return link_launch(l.correlation, l.range, l.path);
    if (!l.boundary) { // after the fall-back: the launch's own link
        try {
            std::lock_guard lock(link_mutex_);
            exact_[l.correlation] = {l.range, l.path};
        } catch (...) {
        }
        return;
    }
    // Window boundaries of several threads: a launch takes the range set by the last boundary,
    // whichever thread marked it. A thread closing its last range hands the process back to
    // the range another thread still has open (a helper thread's short ranges inside the main
    // thread's long one); ranges open on two threads at once are counted and said at the end.
    try {
        std::lock_guard lock(link_mutex_);
        if (l.thread >= open_by_thread_.size()) open_by_thread_.resize(l.thread + 1);
        auto& mine = open_by_thread_[l.thread];
        mine = {l.range, l.path, ++boundary_seq_};
        auto now = std::make_pair(l.range, l.path);
        std::size_t open = 0;
        std::uint64_t latest = 0;
        for (const auto& o : open_by_thread_) {
            if (!o.range) continue;
            ++open;
            if (!l.range && o.seq > latest) {
                latest = o.seq;
                now = {o.range, o.path};
            }
        }
        if (open > 1) ++overlapping_boundaries_;
        links_[l.correlation] = now;
        has_links_.store(true, std::memory_order_relaxed);
    } catch (...) {
    }
}

void collector::take_boundaries(std::vector<launch_link>& b) noexcept {
    std::sort(b.begin(), b.end(),
              [](const auto& x, const auto& y) { return x.correlation < y.correlation; });
    for (const auto& l : b)
        take_link(l);
}

void collector::spill_boundaries(link_ring& ring) {
    // Taking the boundaries here, thread by thread, would order one thread's boundaries before
    // older ones of another thread still in its ring (the hand-back to another thread's open
    // range would be missed); it would also cost the launching thread a map insert per
    // boundary. A copy into one vector costs a few microseconds per 8 Ki boundaries.
    std::vector<launch_link> overflow;
    {
        std::lock_guard lock(spill_mutex_);
        ring.drain([this](const launch_link& l) { spilled_.push_back(l); });
        // No buffer completed for a long time (ranges without kernels): bound the memory.
        if (spilled_.size() >= (std::size_t{1} << 20)) overflow.swap(spilled_);
    }
    if (!overflow.empty()) take_boundaries(overflow);
}

void collector::on_link_record(const CUpti_Activity* a) {
    // Both structs have kept their layout since CUDA 8 (no versioned successor).
    if (a->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
        const auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(a);
        if (e->externalKind != CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) return;
        const auto l = unpack_range(e->correlationId, e->externalId);
        link_launch(l.correlation, l.range, l.path);
        ++external_records_;
        return;
    }
    ++api_records_;
    // The launch's API record: its external correlation record, if any, came just before.
    const auto* api = reinterpret_cast<const CUpti_ActivityAPI*>(a);
    std::lock_guard lock(link_mutex_);
    links_.try_emplace(api->correlationId, 0u, 0u);
}

bool collector::attach_range(kernel_record& r) {
    std::lock_guard lock(link_mutex_);
    if (const auto from = fallback_from_.load(std::memory_order_acquire);
        options_.link == link_mode::window && from && r.correlation > from) {
        // Launched after the fall-back: every launch inside a range has its own link.
        if (const auto it = exact_.find(r.correlation); it != exact_.end()) {
            r.nvtx_range = it->second.first;
            r.nvtx_path = it->second.second;
        }
        constexpr std::uint32_t window = 1u << 16;
        if (r.correlation > window && exact_.size() > 4096)
            exact_.erase(exact_.begin(), exact_.lower_bound(r.correlation - window));
        return true;
    }
    if (options_.link == link_mode::window) {
        // Correlation ids grow in launch order: the kernel runs in the range set by the last
        // boundary before its launch. Exact while one thread launches inside ranges; with
        // several, a thread's launches take the range of whichever thread marked last.
        auto it = links_.lower_bound(r.correlation);
        if (it == links_.begin()) return true;
        --it;
        r.nvtx_range = it->second.first;
        r.nvtx_path = it->second.second;
        constexpr std::uint32_t window = 1u << 16;
        if (r.correlation > window && links_.size() > 4096) {
            auto cut = links_.lower_bound(r.correlation - window);
            if (cut != links_.begin()) links_.erase(links_.begin(), std::prev(cut));
        }
        return true;
    }
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

void collector::report_links() const {
    if (options_.link == link_mode::window && fell_back_.load())
        std::fprintf(stderr,
                     "ktune: NVTX ranges were open on two threads at once: from then on, kernels "
                     "took their range from CUPTI launch callbacks (the launching thread's, "
                     "+0.6 us per launch) instead of range boundaries\n");
    // Until external correlation has been seen working on a GPU, say what reached ktune.
    if (options_.link == link_mode::external_correlation && launch_links_on_.load())
        std::fprintf(stderr,
                     "ktune: NVTX through external correlation: %llu launch API records, %llu "
                     "external correlation records\n",
                     static_cast<unsigned long long>(api_records_),
                     static_cast<unsigned long long>(external_records_));
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
