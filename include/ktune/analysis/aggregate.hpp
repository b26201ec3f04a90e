#pragma once
// Streaming aggregation of traces: "which kernels own the GPU time?". One pass per trace,
// memory bounded by the number of distinct groups (never by the number of records).
//
//   auto r = ktune::analysis::aggregate({"a.ktrace", "b.ktrace"},
//   ktune::analysis::group_by::kernel); for (const auto& row : r.rows) std::cout << row.name << " "
//   << row.stats.total_ns << "\n";

#include "ktune/analysis/timeline.hpp"
#include "ktune/trace/environment.hpp"
#include "ktune/trace/records.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::analysis {

enum class group_by {
    kernel, ///< kernel name
    launch, ///< kernel name + grid, block, cluster, registers, shared memory
    /// Kernel time by the innermost NVTX range open on the launching thread (traces whose
    /// kernels carry no range: the ranges' own host durations)
    nvtx,
    nvtx_path, ///< as nvtx, by the full path of nested ranges "outer/inner"
};

/// "kernel" | "launch" | "nvtx" | "nvtx-path"; throws ktune::error{usage} otherwise.
group_by parse_group_by(std::string_view s);
std::string_view to_string(group_by g) noexcept;

struct duration_stats {
    std::uint64_t count = 0;
    std::uint64_t total_ns = 0;
    double mean_ns = 0;
    double p50_ns = 0; ///< exact up to 4096 samples per group, then within 0.8 %
    double p95_ns = 0;
    std::uint64_t min_ns = 0;
    std::uint64_t max_ns = 0;
    bool operator==(const duration_stats&) const = default;
};

struct group_row {
    std::string name;    ///< demangled (NVTX: the message)
    std::string mangled; ///< empty for NVTX
    std::string shape;   ///< launch grouping: "grid 128x1x1 block 256x1x1 regs 32 smem 0"
    duration_stats stats;
    double share = 0; ///< of all kernel time (NVTX: of the traces' span)
    bool operator==(const group_row&) const = default;
};

struct trace_summary {
    std::string path;
    trace::trace_environment environment;
    trace::trace_counters counters;
    bool complete = false;
    std::string damage;
    bool operator==(const trace_summary&) const = default;
};

struct aggregate_report {
    group_by by = group_by::kernel;
    std::vector<trace_summary> traces;
    std::vector<group_row> rows; ///< sorted by total time, largest first
    std::uint64_t total_ns = 0;  ///< sum over all rows
    std::uint64_t untimed = 0;   ///< records without timestamps (not counted as 0 ns)
    timeline_facts timeline;     ///< kernels only
    /// By NVTX, no kernel carried a range: rows are the ranges' host durations, shares are of
    /// the traces' span.
    bool nvtx_host_time = false;
    bool operator==(const aggregate_report&) const = default;
};

/// Aggregates every trace (runs, ranks) into one ranking. Throws ktune::error for a file that
/// is not a trace; a truncated trace contributes what it holds and its summary says so.
aggregate_report aggregate(const std::vector<std::string>& traces, group_by by);

} // namespace ktune::analysis
