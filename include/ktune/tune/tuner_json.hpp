#pragma once
// `ktune tune --json`: one tune's report (schema ktune.tune_op) and a plan's (schema
// ktune.tune_plan_result), documented in docs/formats.md. Kernel times are printed in
// microseconds (the cache's unit, *_us keys), durations of the tune in seconds (*_s keys).
//
//   std::string text = ktune::tune::tune_report_json(report, request);

#include "ktune/tune/tuner.hpp"
#include "ktune/tune/tuner_plan.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ktune::tune {

/// One tune (ktune.tune_op 1.4.0), indented by two spaces; `torch` adds the PyTorch timing.
std::string tune_report_json(const tune_report& r, const tune_request& rq,
                             const std::optional<torch_timing>& torch = std::nullopt);

/// A plan (ktune.tune_plan_result 1.1.0): each tune's ktune.tune_op object (or its error),
/// the GPU that ran it and how often it moved; torch[i] (may be empty) for tune i.
std::string tune_plan_json(const std::vector<tune_request>& rqs,
                           const std::vector<plan_outcome>& outs,
                           const std::vector<std::optional<torch_timing>>& torch, double wall_s);

/// Every candidate a search measured as a recorded space that `ktune tune --space` replays:
/// Kernel Tuner's cache format (examples/data/spaces/README.md), a failed config's time a
/// string ("CompilationFailedConfig", "RuntimeFailedConfig"), plus a "ktune" block (op version
/// or spec hash, problem, bytes, copy roof, protocol). Written by `ktune tune --record-space`;
/// an exhaustive search records the whole space (docs/formats.md#recorded-spaces).
std::string recorded_space_json(const tune_report& r, const tune_request& rq);

} // namespace ktune::tune
