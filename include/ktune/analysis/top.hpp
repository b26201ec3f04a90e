#pragma once
// The `ktune top` report of an aggregate: a terminal table and a versioned JSON document
// (schema "ktune.top" 1.0.0).
//
//   std::fputs(ktune::analysis::format_top(report, 20).c_str(), stdout);

#include "ktune/analysis/aggregate.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace ktune::analysis {

/// Human-readable report: trace provenance, timeline facts, then the top `limit` rows.
std::string format_top(const aggregate_report& report, std::size_t limit);
/// JSON with "schema": "ktune.top", "version": "1.0.0".
std::string top_json(const aggregate_report& report, std::size_t limit);
/// Names cut to `width` characters in the middle (the start and the argument list stay), with a
/// tag from a hash of the whole name where two distinct names would still read the same: no two
/// rows of the report print as one kernel.
std::vector<std::string> distinct_short_names(const std::vector<std::string>& names,
                                              std::size_t width);
/// "1.23 ms", "45.6 us", "789 ns".
std::string format_duration(double ns);

} // namespace ktune::analysis
