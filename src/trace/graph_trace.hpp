#pragma once
// Graph-level records (CUPTI's GRAPH_TRACE) are turned on at the program's first graph
// instantiation, not at start: a program that never builds a CUDA graph never pays for them
// (docs/perf/profile.md#graph-level-tracing). The session arms the trigger and turns on the
// subscriber callbacks of the driver's instantiate calls; the first one enables the kind.
#include "cupti_seam.hpp"

namespace ktune::trace::detail {

/// Whether `id` (driver domain) instantiates a graph.
bool is_graph_instantiate(CUpti_CallbackId id) noexcept;
/// Turns the subscriber callbacks of every driver instantiate call on or off.
void set_graph_instantiate_callbacks(cupti_api& api, bool on) noexcept;

enum class graph_trace_state { waiting, enabled, refused };
/// Arms the trigger with the API to enable GRAPH_TRACE through (null: disarms it).
void arm_graph_trace(cupti_api* api) noexcept;
/// At a graph instantiation (from the subscriber callback): enables GRAPH_TRACE once.
void fire_graph_trace() noexcept;
/// What the trigger did since it was last armed.
graph_trace_state graph_trace_status() noexcept;

} // namespace ktune::trace::detail
