// The report of `ktune roofline`: JSON (schema ktune.roofline, docs/formats.md) and the table.
#include "ktune/analysis/roofline_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <cmath>

namespace ktune::analysis {
namespace {

// JSON has no infinity: a kernel without DRAM traffic gets null intensity.
nlohmann::json finite_or_null(double v) {
    return std::isfinite(v) ? nlohmann::json(v) : nullptr;
}

// Natural launches the kernel's passes ran on (1: one launch, replayed by CUPTI or one pass).
std::uint64_t pass_launches(const metrics::kernel_metrics_doc& d, std::string_view name,
                            std::uint64_t launch_index) {
    for (const auto& k : d.kernels)
        if (k.name == name && k.launch_index == launch_index) return k.pass_launches;
    return 1;
}

nlohmann::json to_json(const roofline_analysis& a, const metrics::kernel_metrics_doc& d) {
    nlohmann::json ceilings = nlohmann::json::object();
    for (std::size_t k = 0; k < compute_kind_count; ++k)
        if (a.roofs.flops_per_s[k] > 0)
            ceilings[std::string(to_string(static_cast<compute_kind>(k)))] = a.roofs.flops_per_s[k];
    nlohmann::json j{{"schema", "ktune.roofline"},
                     {"version", "1.1.0"}, // 1.1: bound_by, l2_pct, l1_pct, issue_pct
                     {"gpu", a.roofs.gpu},
                     {"roofs",
                      {{"source", a.roofs.source},
                       {"dram_bytes_per_s", a.roofs.dram_bytes_per_s},
                       {"flops_per_s", ceilings}}},
                     {"metric_set", d.metric_set},
                     {"passes", d.passes},
                     {"dropped_ranges", d.dropped_ranges},
                     {"replay", d.replay},
                     {"incomplete_kernels", d.incomplete_kernels},
                     {"incomplete", d.incomplete},
                     {"denied", d.denied},
                     {"unevaluated", a.unevaluated},
                     {"kernels", nlohmann::json::array()}};
    for (const auto& p : a.points)
        j["kernels"].push_back(
            {{"name", p.name},
             {"launch_index", p.launch_index},
             {"class", to_string(p.cls)},
             {"bound_by", to_string(p.unit)},
             {"lever", p.lever},
             {"why", p.why},
             {"time_ns", p.time_ns},
             {"time_share", p.time_share},
             {"intensity", finite_or_null(p.intensity)},
             {"flops_per_s", p.flops_per_s},
             {"bytes_per_s", p.bytes_per_s},
             {"precision", to_string(p.kind)},
             {"roof_flops_per_s", p.roof_flops_per_s},
             {"ridge", p.ridge},
             {"pct_of_attainable", p.pct_of_attainable},
             {"memory_pct", p.memory_pct},
             {"compute_pct", p.compute_pct},
             {"l2_pct", p.l2_pct >= 0 ? nlohmann::json(p.l2_pct) : nullptr},
             {"l1_pct", p.l1_pct >= 0 ? nlohmann::json(p.l1_pct) : nullptr},
             {"issue_pct", p.issue_pct >= 0 ? nlohmann::json(p.issue_pct) : nullptr},
             {"pass_launches", pass_launches(d, p.name, p.launch_index)}});
    return j;
}

std::string fit(std::string_view s, std::size_t n) {
    return s.size() <= n ? std::string(s) : std::string(s.substr(0, n - 3)) + "...";
}

} // namespace

std::string roofline_json(const roofline_analysis& a, const metrics::kernel_metrics_doc& doc,
                          std::optional<std::size_t> joined_by_correlation,
                          const std::vector<std::string>& mixed_work) {
    auto j = to_json(a, doc);
    if (joined_by_correlation) j["joined_by_correlation"] = *joined_by_correlation;
    j["mixed_work"] = mixed_work;
    return j.dump(2);
}

std::string format_roofline(const roofline_analysis& a, const metrics::kernel_metrics_doc& d,
                            std::optional<std::size_t> joined,
                            const std::vector<std::string>& mixed) {
    std::string out;
    out += fmt::format("Roofline of {} kernels on {} ({})\n", a.points.size(), a.roofs.gpu,
                       a.roofs.source);
    if (d.replay == "launches")
        out += fmt::format(
            "metric set {} on {}: {} passes per kernel, one per natural launch (no "
            "replay){}\n",
            d.metric_set.empty() ? "?" : d.metric_set, d.chip.empty() ? "?" : d.chip, d.passes,
            d.range == "user" ? "; many kernels per pass, times from the launch records" : "");
    else
        out += fmt::format("metric set {} on {}: {} replay passes per kernel\n",
                           d.metric_set.empty() ? "?" : d.metric_set, d.chip.empty() ? "?" : d.chip,
                           d.passes);
    if (joined)
        out += fmt::format("metrics joined to their launches by correlation id: {} of {}\n",
                           *joined, d.kernels.size());
    out += "\n";
    out += fmt::format("{:>6}  {:<8} {:<9} {:>9} {:>6} {:>9} {:>8} {:>6} {:>6} {:>6}  {}\n",
                       "time%", "class", "bound by", "FLOP/B", "ridge", "TFLOP/s", "GB/s", "DRAM%",
                       "comp%", "%roof", "kernel");
    for (const auto& p : a.points) {
        out +=
            fmt::format("{:>6.1f}  {:<8} {:<9} {:>9} {:>6.1f} {:>9.2f} {:>8.0f} {:>6.1f} {:>6.1f} "
                        "{:>6.1f}  {}\n",
                        100 * p.time_share, to_string(p.cls), to_string(p.unit),
                        std::isfinite(p.intensity) ? fmt::format("{:.3g}", p.intensity) : "inf",
                        p.ridge, p.flops_per_s / 1e12, p.bytes_per_s / 1e9, p.memory_pct,
                        p.compute_pct, p.pct_of_attainable, fit(p.name, 60));
        out += fmt::format("{:>16} {}: {}\n", "->", p.lever, p.why);
    }
    if (d.dropped_ranges)
        out += fmt::format("\nwarning: CUPTI dropped {} ranges: those launches have no metrics\n",
                           d.dropped_ranges);
    if (d.incomplete_kernels)
        out += fmt::format("\nwarning: {} kernels launched fewer times than the set has passes (or "
                           "given up on): no metrics for them; --replay kernel collects them\n",
                           d.incomplete_kernels);
    if (!d.incomplete.empty())
        out += fmt::format("incomplete: {}\n", fmt::format("{}", fmt::join(d.incomplete, ", ")));
    if (!mixed.empty())
        out += fmt::format(
            "\nwarning: {} kernel samples left out: their passes came from launches that "
            "did different work (one grid and block, launch times apart by > 25 %); "
            "--replay kernel measures each launch on its own:\n  {}\n",
            mixed.size(), fmt::format("{}", fmt::join(mixed, "\n  ")));
    if (!a.unevaluated.empty())
        out += fmt::format(
            "\nwarning: {} kernel samples left out (CUPTI evaluated no number for a metric "
            "the roofline needs):\n  {}\n",
            a.unevaluated.size(), fmt::format("{}", fmt::join(a.unevaluated, "\n  ")));
    if (!d.denied.empty())
        out += fmt::format("\nnot profiled (deny-list, never serialised): {}\n",
                           fmt::format("{}", fmt::join(d.denied, ", ")));
    return out;
}

} // namespace ktune::analysis
