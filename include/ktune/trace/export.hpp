#pragma once
// Exports of a .ktrace to formats other tools open. Both stream: memory stays bounded.
//
//   ktune::trace::export_trace("run.ktrace", "run.json", ktune::trace::export_format::chrome);

#include <cstdint>
#include <string>
#include <string_view>

namespace ktune::trace {

enum class export_format {
    chrome, ///< Chrome trace event JSON: opens in Perfetto (ui.perfetto.dev) and chrome://tracing
    csv,    ///< one row per record, every field
};

/// "chrome" / "csv" → format; throws ktune::error{usage} naming the accepted values otherwise
/// ("sqlite" is named as not supported yet).
export_format parse_export_format(std::string_view name);

struct export_summary {
    std::uint64_t records = 0;
    std::string damage; ///< non-empty when the trace was cut short (exported up to there)
};

/// Writes `trace_path` as `format` to `out_path`. Throws ktune::error{io|input}.
export_summary export_trace(const std::string& trace_path, const std::string& out_path,
                            export_format format);

} // namespace ktune::trace
