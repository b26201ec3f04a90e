#pragma once
// Where and how a trace was recorded. The part known at start (host, command, pid, time,
// CUPTI/toolkit versions) goes into the file's header; GPU identity, driver and clocks are only
// safe to read once the application has initialised CUDA, so they are written at the end.
//
//   auto env = reader.environment();  std::cout << env.gpus.at(0).name;

#include <cstdint>
#include <string>
#include <vector>

namespace ktune::trace {

struct gpu_identity {
    std::uint32_t device = 0; ///< CUPTI device id = CUDA ordinal in the process
    std::string name;         ///< "NVIDIA H200"
    std::string uuid;         ///< "GPU-…"
    int cc_major = 0;
    int cc_minor = 0;
    unsigned sm_mhz = 0; ///< clocks read at the end of the recording (0 if NVML is absent)
    unsigned memory_mhz = 0;
    std::uint64_t throttle_reasons = 0;
    bool operator==(const gpu_identity&) const = default;
};

struct trace_environment {
    std::string ktune_version;
    std::string host;
    std::vector<std::string> command_line;
    std::int64_t pid = 0;
    std::int64_t start_unix_ns = 0;   ///< wall clock when recording started
    std::uint64_t start_trace_ns = 0; ///< CUPTI timestamp at the same moment (maps trace→wall)
    std::uint32_t cupti_version = 0;  ///< cuptiGetVersion, e.g. 130001
    int toolkit_version = 0;          ///< CUDA toolkit ktune was built with, e.g. 13000
    /// How kernels learned their NVTX range: "callback", "window", "external_correlation",
    /// "locked_map"; empty when NVTX was not recorded or the trace predates the field
    /// (docs/formats.md).
    std::string nvtx_link;
    /// How CUDA graph launches were recorded: "graph" (one record per launch), "node" (one
    /// per kernel, copy and memset node); empty in traces that predate the choice (node).
    std::string graph_trace;
    /// Where kernel timestamps came from: "hardware_events" (CUPTI's HW trace, Blackwell and
    /// later) or "instrumented" (CUPTI's per-launch semaphores); empty in older traces.
    std::string kernel_timestamps;
    // Filled at the end of the recording:
    int driver_api_version = 0; ///< cuDriverGetVersion, e.g. 13000
    std::string driver_version; ///< NVML, e.g. "580.159.04"
    std::vector<gpu_identity> gpus;
    bool operator==(const trace_environment&) const = default;
};

/// JSON text of an environment and back (the form stored in a .ktrace header/trailer).
std::string to_json(const trace_environment& env);
trace_environment environment_from_json(const std::string& text);

} // namespace ktune::trace
