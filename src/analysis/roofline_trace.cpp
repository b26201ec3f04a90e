// The .ktrace side of the roofline: launch counts, GPU time and idle gaps from the profile's
// timeline, joined to the sampled metrics by kernel name.
#include "ktune/analysis/aggregate.hpp"
#include "ktune/analysis/roofline.hpp"

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

} // namespace ktune::analysis
