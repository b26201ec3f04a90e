#pragma once
// The --metrics options of `ktune profile`: parsed here, checked by the metrics library before
// the program starts (a set over the pass budget is refused up front), and handed to
// libktune_inject.so as a metrics::launch_options (ktune/metrics/launch_options.hpp).
#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace ktune::cli {

struct profile_metrics_options {
    std::string set; ///< empty: no metrics
    std::string kernels;
    std::string sample = "1/1";
    std::uint64_t max_kernels = 10;
    std::uint64_t per_kernel = 1;
    std::string deny;
    std::string peaks;
    std::size_t max_passes = 3;
    /// Empty: `all` under --replay launches, `none` under --replay kernel. The H200 runs of
    /// 2026-11-21 (docs/perf/metrics.md#cache-control): under kernel replay the flush changes no
    /// DRAM count (CUPTI saves and restores memory after it); with one pass per natural launch it
    /// makes ktune's DRAM bytes agree with ncu's (10 of 11 workloads within 2 %) for ~4 ms/pass.
    std::string cache_control;
    /// kernel: CUPTI replays each profiled launch once per pass; launches (default): pass i on
    /// a later launch of the same kernel and shape, many kernels per pass (no replay; kernels
    /// that do not come back for every pass get no metrics and are counted as incomplete).
    std::string replay = "launches";
};

void add_profile_metrics_options(CLI::App& app, profile_metrics_options& o);
/// Validates `o` and sets the environment the profiled program inherits; no-op without --metrics.
/// Throws ktune::error (usage, input, unsupported) for a request that cannot run.
void export_profile_metrics(const profile_metrics_options& o);

} // namespace ktune::cli
