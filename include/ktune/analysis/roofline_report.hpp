#pragma once
// The report of `ktune roofline`: JSON (schema ktune.roofline, docs/formats.md#ktuneroofline)
// and the terminal table, from an analysis and the metrics document it was made from.
//
//   auto t = ktune::analysis::metrics_from_trace("run.ktrace");
//   auto a = ktune::analysis::analyse_roofline(t.doc);
//   std::puts(ktune::analysis::roofline_json(a, t.doc, t.joined_by_correlation, t.mixed_work)
//                 .c_str());

#include "ktune/analysis/roofline.hpp"
#include "ktune/metrics/kernel_metrics.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace ktune::analysis {

/// Schema ktune.roofline, version 1.1.0. `joined_by_correlation` and `mixed_work` are
/// metrics_from_trace's (a trace input); a metrics file has neither (nullopt, empty).
std::string roofline_json(const roofline_analysis& a, const metrics::kernel_metrics_doc& doc,
                          std::optional<std::size_t> joined_by_correlation,
                          const std::vector<std::string>& mixed_work);

/// The table: one line per kernel with its lever and why, then the warnings (dropped ranges,
/// incomplete, mixed-work and unevaluated kernels, the deny-list).
std::string format_roofline(const roofline_analysis& a, const metrics::kernel_metrics_doc& doc,
                            std::optional<std::size_t> joined_by_correlation,
                            const std::vector<std::string>& mixed_work);

} // namespace ktune::analysis
