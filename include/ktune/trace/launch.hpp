#pragma once
// Running a program under ktune: locate libktune_inject.so, start the command with
// CUDA_INJECTION64_PATH / NVTX_INJECTION64_PATH pointing at it, wait, collect the traces.
//
//   auto r = ktune::trace::run_profiled({.output = "run.ktrace", .command = {"./app"}});
//   return r.exit_code;

#include <string>
#include <vector>

namespace ktune::trace {

struct launch_request {
    std::string output = "ktune.ktrace";
    double delay_s = 0;
    double duration_s = 0;
    std::string record; ///< KTUNE_RECORD: "kernel,memcpy,memset,sync,nvtx"; empty = all
    /// KTUNE_NVTX_LINK: how kernels learn their NVTX range (callback, window); empty: the
    /// session's default.
    std::string nvtx_link;
    /// KTUNE_GRAPH_TRACE: "graph" (one record per graph launch) or "node"; empty: the
    /// session's default (graph).
    std::string graph_trace;
    std::vector<std::string> command;
    std::string inject_library; ///< empty: find it next to the running executable
};

struct launch_result {
    int exit_code = 0;               ///< the program's, or 128 + signal
    std::vector<std::string> traces; ///< the root trace first, then child processes' traces
};

/// Absolute path of libktune_inject.so: $KTUNE_INJECT_LIBRARY, else the build tree
/// (<build>/src/inject/) or install layout (<prefix>/lib/) relative to `executable`.
/// Throws ktune::error{not_found} listing the places it looked.
std::string find_inject_library(const std::string& executable);

/// Runs the command profiled and waits for it. Throws ktune::error{usage} for an empty
/// command and {not_found} when the command cannot be started.
launch_result run_profiled(const launch_request& request);

} // namespace ktune::trace
