// The .ktrace side of the roofline: launch counts, GPU time and idle gaps from the profile's
// timeline, joined to the sampled metrics by kernel name.
#include "ktune/analysis/aggregate.hpp"
#include "ktune/analysis/roofline.hpp"
#include "ktune/core/error.hpp"
#include "ktune/trace/trace_file.hpp"

#include <algorithm>
#include <unordered_set>

namespace ktune::analysis {

void join_trace_timeline(metrics::kernel_metrics_doc& doc, const std::vector<std::string>& traces) {
    if (traces.empty()) return;
    const auto report = aggregate(traces, group_by::kernel);
    const double mean_gap = report.timeline.gaps > 0
                                ? double(report.timeline.idle_ns) / double(report.timeline.gaps)
                                : -1;
    for (auto& k : doc.kernels) {
        for (const auto& row : report.rows) {
            if (row.name != k.name && row.mangled != k.name) continue;
            k.launches = row.stats.count > 0 ? row.stats.count : 1;
            k.total_time_ns = double(row.stats.total_ns);
            k.mean_gap_ns = mean_gap;
            break;
        }
    }
    if (doc.gpu.empty())
        for (const auto& t : report.traces)
            if (!t.environment.gpus.empty()) {
                doc.gpu = t.environment.gpus.front().name;
                break;
            }
}

namespace {

struct correlation_ids final : trace::trace_visitor {
    std::unordered_set<std::uint32_t> ids;
    void on_kernels(std::span<const trace::kernel_record> ks) override {
        for (const auto& k : ks)
            ids.insert(k.correlation);
    }
};

} // namespace

trace_metrics metrics_from_trace(const std::string& path) {
    const std::string json = trace::read_metrics_chunk(path);
    if (json.empty())
        throw error(error_kind::input,
                    path +
                        ": no metrics in this trace; record them with `ktune profile --metrics "
                        "roofline -o " +
                        path + " -- <cmd>`");
    trace_metrics out{metrics::parse_kernel_metrics(json, path + " (metrics chunk)"), 0};
    join_trace_timeline(out.doc, {path});
    // The join by launch: CUPTI's correlation id of the sampled launch is the id of its kernel
    // record in the activity trace.
    trace::trace_reader reader(path);
    correlation_ids seen;
    (void)reader.read(seen);
    for (auto& k : out.doc.kernels) {
        if (k.correlation_id != 0 &&
            seen.ids.contains(static_cast<std::uint32_t>(k.correlation_id)))
            ++out.joined_by_correlation;
        k.name = trace::demangle(k.name);
    }
    return out;
}

} // namespace ktune::analysis
