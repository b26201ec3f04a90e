#pragma once
// Metric validation and replay-pass counts through CUPTI's profiler host API. It needs no GPU,
// only a chip name, so a metric set is checked (and refused when too costly) before anything
// runs, and the checks are unit-tested on CPU-only machines.
//
//   if (!ktune::metrics::is_valid_metric("GH100", "dram__bytes.sum")) ...
//   auto set = ktune::metrics::resolve_metric_set(spec, "GH100", /*max_passes=*/3);

#include "ktune/metrics/metric_set.hpp"

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::metrics {

/// Chips CUPTI's host API knows ("GA100", "GH100", "AD102", "GB100", …).
std::vector<std::string> supported_chips();

/// The CUPTI chip of a compute capability ("sm_90" -> "GH100"); nullopt if ktune has no
/// default for it (pass the chip name explicitly then).
std::optional<std::string> default_chip_for_arch(std::string_view arch) noexcept;

/// True when `metric` is a range-profiler metric on `chip`. Each name is checked on a fresh
/// host object, because a failed add poisons the object for every later call.
/// Throws error_kind::not_found for a chip CUPTI does not know.
bool is_valid_metric(std::string_view chip, std::string_view metric);

/// Replay passes CUPTI needs to collect all `metrics` (each valid) on `chip`.
std::size_t count_passes(std::string_view chip, std::span<const std::string> metrics);

/// Resolve `spec` on `chip`. Throws error_kind::input naming every invalid required metric,
/// and error_kind::unsupported when the set needs more than `max_passes` replay passes: a set
/// that costly is refused before anything runs.
metric_set resolve_metric_set(const metric_set_spec& spec, std::string_view chip,
                              std::size_t max_passes);

} // namespace ktune::metrics
