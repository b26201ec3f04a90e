// See graph_trace.hpp.
#include "graph_trace.hpp"

#include <atomic>

namespace ktune::trace::detail {
namespace {

// Runtime instantiations reach the driver's calls, so the driver domain sees them all.
constexpr CUpti_CallbackId instantiate_ids[] = {
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate, CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams_ptsz};

std::atomic<cupti_api*> g_armed{nullptr};
std::atomic<graph_trace_state> g_state{graph_trace_state::waiting};

} // namespace

bool is_graph_instantiate(CUpti_CallbackId id) noexcept {
    for (const auto i : instantiate_ids)
        if (i == id) return true;
    return false;
}

void set_graph_instantiate_callbacks(cupti_api& api, bool on) noexcept {
    for (const auto id : instantiate_ids)
        api.enable_callback(CUPTI_CB_DOMAIN_DRIVER_API, id, on);
}

void arm_graph_trace(cupti_api* api) noexcept {
    if (api) g_state.store(graph_trace_state::waiting);
    g_armed.store(api, std::memory_order_release);
}

void fire_graph_trace() noexcept {
    // exchange: of several threads instantiating at once, one enables the kind.
    if (cupti_api* api = g_armed.exchange(nullptr, std::memory_order_acq_rel))
        g_state.store(api->enable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE) == CUPTI_SUCCESS
                          ? graph_trace_state::enabled
                          : graph_trace_state::refused);
}

graph_trace_state graph_trace_status() noexcept {
    return g_state.load();
}

} // namespace ktune::trace::detail
