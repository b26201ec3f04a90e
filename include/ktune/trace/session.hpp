#pragma once
// An in-process profiling session: CUPTI activity tracing into a .ktrace file. Every call is
// noexcept and idempotent, because the host may be any program (ktune injects this into
// `python3`): a failure is a false return plus message(), and the program runs on unprofiled.
//
//   ktune::trace::session s({.output = "run.ktrace"});
//   if (!s.start()) std::fprintf(stderr, "%s\n", s.message().c_str());
//   run_workload();
//   s.stop();  s.save();     // or let the destructor do both

#include "ktune/trace/records.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ktune::trace {

namespace detail {
class cupti_api;
}

/// How a kernel learns the NVTX range open on the thread that launched it
/// (src/trace/launch_links.hpp; measured side by side in docs/perf/profile.md#nvtx-attribution).
enum class nvtx_link : std::uint8_t {
    callback,             ///< CUPTI launch callbacks into a per-thread ring (+0.6 us per launch)
    external_correlation, ///< CUPTI external correlation ids (no subscriber needed; costlier)
    locked_map,           ///< launch callbacks into a locked map (the first implementation)
    /// One marker per range boundary, nothing per launch (default); falls back to callbacks
    /// once ranges are open on two threads at once (launch_links.hpp).
    window,
};

struct session_options {
    std::string output = "ktune.ktrace";
    double delay_s = 0;    ///< start recording this long after start()
    double duration_s = 0; ///< stop recording this long after it began (0: until stop())
    bool memcpy = true;    ///< also record copies
    bool memset = true;
    /// Host waits (cudaDeviceSynchronize, cudaStreamSynchronize, …). Off by default: on an H200
    /// it cost +11 points on 20 000 tiny launches (docs/perf/profile.md).
    bool sync = false;
    /// NVTX ranges, and each kernel's enclosing range. NVTX reaches ktune only through
    /// NVTX_INJECTION64_PATH=libktune_inject.so (set by `ktune profile`).
    bool nvtx = true;
    /// KTUNE_NVTX_LINK=callback|external_correlation|locked_map|window in the environment
    /// overrides it.
    nvtx_link link = nvtx_link::window;
    /// One record per CUDA graph launch (CUPTI's GRAPH_TRACE, what Nsight Systems does by
    /// default) instead of one per node: a graph of 1,000 kernels costs CUPTI one record, and
    /// cudaGraphLaunch keeps returning early (docs/perf/profile.md#graph-trace). Where this
    /// CUPTI cannot, nodes are recorded and the environment says "node".
    bool graph_level = true;
    /// Kernel timestamps from the GPU's hardware event system where CUPTI offers it (cheaper per
    /// launch than instrumented launches); the environment says which ran. KTUNE_HW_TRACE=0
    /// turns it off.
    bool hw_trace = true;
    /// Keep CUPTI's subscriber slot for the whole session (false: claim it at start only to
    /// detect another CUPTI client, then release it).
    bool hold_subscription = true;
    std::size_t buffer_bytes = 8u << 20;
    /// Hand CUPTI pre-zeroed buffers so it does not zero them on the launching thread.
    bool zeroed_buffers = true;
    std::size_t device_buffer_bytes = 0;   ///< CUPTI's DEVICE_BUFFER_SIZE (0: CUPTI's default)
    std::vector<std::string> command_line; ///< recorded in the environment
};

enum class session_state { idle, recording, stopped, saved, failed };

class session {
public:
    explicit session(session_options options);
    /// For tests: a fake CUPTI behind the seam (see src/trace/cupti_seam.hpp).
    session(session_options options, std::unique_ptr<detail::cupti_api> api);
    ~session(); ///< stops and saves if still open
    session(const session&) = delete;
    session& operator=(const session&) = delete;

    /// Subscribes to CUPTI and enables activity records. False when another CUPTI client holds
    /// the subscription, the CUPTI version has no decoder, or the file cannot be created.
    bool start() noexcept;
    /// Hands completed CUPTI buffers to the writer (records of kernels still running stay).
    void flush() noexcept;
    /// Disables recording and forces delivery of every buffered record.
    void stop() noexcept;
    /// Writes the end environment and footer; the file is complete after this.
    bool save() noexcept;

    [[nodiscard]] session_state state() const noexcept;
    [[nodiscard]] const std::string& message() const noexcept; ///< why start/save failed
    [[nodiscard]] trace_counters counters() const;
    [[nodiscard]] const session_options& options() const noexcept;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

/// NVTX's injection entry (InitializeInjectionNvtx2's argument, NvtxGetExportTableFunc_t):
/// routes the program's NVTX ranges to the recording session. Returns 1 on success.
int install_nvtx_injection(const void* get_export_table) noexcept;

} // namespace ktune::trace
