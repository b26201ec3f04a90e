#pragma once
// What a profiled process collects besides its trace: the hardware-metric request that
// `ktune profile --metrics` (or any launcher) hands to libktune_inject.so. The profiled program
// inherits it through KTUNE_METRICS* environment variables (ktune/core/env.hpp names them);
// this is the one encoding of them, used by both sides.
//
//   ktune::metrics::launch_options o;
//   o.set = "roofline";
//   o.replay = ktune::metrics::replay_mode::launches;
//   o.flush_l2 = true;
//   ktune::metrics::export_launch_env(o);   // then start the program with the injection library

#include "ktune/metrics/range_session.hpp"
#include "ktune/metrics/sampling.hpp"

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ktune::metrics {

struct launch_options {
    std::string set; ///< roofline, occupancy, stalls or metric names (metric_set_request)
    /// Which launches get metrics. The sampling's `deny` substrings are not carried (the
    /// profiled side always adds its own); deny_regex is.
    sampling_options sampling;
    std::size_t max_passes = 3; ///< replay-pass budget per profiled kernel
    bool flush_l2 = false;      ///< write back and invalidate L2 before each profiled range
    replay_mode replay = replay_mode::kernel;
    /// encode_metric_set of the set resolved for the launcher's chip, reused by the profiled
    /// process when its GPU is the same chip ("" : resolve there).
    std::string resolved;
    std::string peaks_file; ///< measured roofs to record (absolute: the program may chdir)
    bool operator==(const launch_options&) const = default;
};

/// Every KTUNE_METRICS* variable with its value for `o`, in a fixed order; "" means "unset it"
/// (a stale value from the caller's environment must not leak through).
std::vector<std::pair<std::string, std::string>> encode_launch_env(const launch_options& o);

/// Sets (or unsets) this process's KTUNE_METRICS* variables to `o`, for a child to inherit.
void export_launch_env(const launch_options& o);

/// Reads the request back through `get` (std::getenv by default); nullopt without
/// KTUNE_METRICS. A value that cannot be read keeps its default and adds a line to `warnings`
/// (the profiled side prints them and goes on); a bad sample rate throws error{usage}.
std::optional<launch_options>
decode_launch_env(const std::function<const char*(const char*)>& get = nullptr,
                  std::vector<std::string>* warnings = nullptr);

} // namespace ktune::metrics
