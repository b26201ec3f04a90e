#pragma once
// Private: reads a .ktrace into per-kernel distributions (see series.hpp, load_series).
#include "ktune/guard/series.hpp"

#include <string>

namespace ktune::guard::detail {

/// One series per (demangled kernel name, grid, block): launch durations in ns, launches per run,
/// share of the trace's kernel time; the environment from the trace's trailer. Incomplete traces
/// and dropped records become notes. Throws ktune::error(input/io) naming the file; a damaged or
/// cut trace is an input error unless `allow_incomplete` (then a note).
series_set read_trace_series(const std::string& path, bool allow_incomplete = false);

} // namespace ktune::guard::detail
