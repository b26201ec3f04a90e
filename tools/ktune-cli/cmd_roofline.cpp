// ktune roofline <trace.ktrace | metrics.json> [--gpu auto|<name>] [--svg file] [--json]
#include "command.hpp"
#include "damage.hpp"
#include "validators.hpp"

#include "ktune/analysis/roofline.hpp"
#include "ktune/analysis/roofline_svg.hpp"
#include "ktune/core/atomic_file.hpp"
#include "ktune/core/error.hpp"
#include "ktune/metrics/kernel_metrics.hpp"
#include "ktune/trace/trace_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <memory>
#include <optional>
#include <vector>

namespace ktune::cli {
namespace {

struct roofline_options {
    std::string input;
    std::string gpu = "auto";
    std::string svg;
    std::string peaks;
    std::vector<std::string> traces;
    std::string dump_metrics;
    bool json = false;
    bool allow_incomplete = false;
    double latency_pct = 30;
};

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

nlohmann::json to_json(const analysis::roofline_analysis& a, const metrics::kernel_metrics_doc& d) {
    nlohmann::json ceilings = nlohmann::json::object();
    for (std::size_t k = 0; k < analysis::compute_kind_count; ++k)
        if (a.roofs.flops_per_s[k] > 0)
            ceilings[std::string(to_string(static_cast<analysis::compute_kind>(k)))] =
                a.roofs.flops_per_s[k];
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

void print_table(const analysis::roofline_analysis& a, const metrics::kernel_metrics_doc& d,
                 const std::optional<std::size_t>& joined, const std::vector<std::string>& mixed) {
    fmt::print("Roofline of {} kernels on {} ({})\n", a.points.size(), a.roofs.gpu, a.roofs.source);
    if (d.replay == "launches")
        fmt::print(
            "metric set {} on {}: {} passes per kernel, one per natural launch (no "
            "replay){}\n",
            d.metric_set.empty() ? "?" : d.metric_set, d.chip.empty() ? "?" : d.chip, d.passes,
            d.range == "user" ? "; many kernels per pass, times from the launch records" : "");
    else
        fmt::print("metric set {} on {}: {} replay passes per kernel\n",
                   d.metric_set.empty() ? "?" : d.metric_set, d.chip.empty() ? "?" : d.chip,
                   d.passes);
    if (joined)
        fmt::print("metrics joined to their launches by correlation id: {} of {}\n", *joined,
                   d.kernels.size());
    fmt::print("\n");
    fmt::print("{:>6}  {:<8} {:<9} {:>9} {:>6} {:>9} {:>8} {:>6} {:>6} {:>6}  {}\n", "time%",
               "class", "bound by", "FLOP/B", "ridge", "TFLOP/s", "GB/s", "DRAM%", "comp%", "%roof",
               "kernel");
    for (const auto& p : a.points) {
        fmt::print("{:>6.1f}  {:<8} {:<9} {:>9} {:>6.1f} {:>9.2f} {:>8.0f} {:>6.1f} {:>6.1f} "
                   "{:>6.1f}  {}\n",
                   100 * p.time_share, to_string(p.cls), to_string(p.unit),
                   std::isfinite(p.intensity) ? fmt::format("{:.3g}", p.intensity) : "inf", p.ridge,
                   p.flops_per_s / 1e12, p.bytes_per_s / 1e9, p.memory_pct, p.compute_pct,
                   p.pct_of_attainable, fit(p.name, 60));
        fmt::print("{:>16} {}: {}\n", "->", p.lever, p.why);
    }
    if (d.dropped_ranges)
        fmt::print("\nwarning: CUPTI dropped {} ranges: those launches have no metrics\n",
                   d.dropped_ranges);
    if (d.incomplete_kernels)
        fmt::print("\nwarning: {} kernels launched fewer times than the set has passes (or "
                   "given up on): no metrics for them; --replay kernel collects them\n",
                   d.incomplete_kernels);
    if (!d.incomplete.empty())
        fmt::print("incomplete: {}\n", fmt::format("{}", fmt::join(d.incomplete, ", ")));
    if (!mixed.empty())
        fmt::print("\nwarning: {} kernel samples left out: their passes came from launches that "
                   "did different work (one grid and block, launch times apart by > 25 %); "
                   "--replay kernel measures each launch on its own:\n  {}\n",
                   mixed.size(), fmt::format("{}", fmt::join(mixed, "\n  ")));
    if (!a.unevaluated.empty())
        fmt::print("\nwarning: {} kernel samples left out (CUPTI evaluated no number for a metric "
                   "the roofline needs):\n  {}\n",
                   a.unevaluated.size(), fmt::format("{}", fmt::join(a.unevaluated, "\n  ")));
    if (!d.denied.empty())
        fmt::print("\nnot profiled (deny-list, never serialised): {}\n",
                   fmt::format("{}", fmt::join(d.denied, ", ")));
}

int run(const roofline_options& o) {
    metrics::kernel_metrics_doc doc;
    std::optional<std::size_t> joined;
    std::vector<std::string> mixed;
    if (trace::is_trace_file(o.input)) {
        refuse_damage(trace::scan_trace(o.input).damage, o.allow_incomplete, "roofline");
        auto t = analysis::metrics_from_trace(o.input);
        doc = std::move(t.doc);
        joined = t.joined_by_correlation;
        mixed = std::move(t.mixed_work);
    } else {
        doc = metrics::read_kernel_metrics(o.input);
    }
    if (!o.dump_metrics.empty()) {
        refuse_same_file(o.dump_metrics, {o.input});
        metrics::write_kernel_metrics(o.dump_metrics, doc);
    }
    if (!o.peaks.empty()) doc.measured = metrics::read_measured_peaks(o.peaks);
    for (const auto& t : o.traces)
        refuse_damage(trace::scan_trace(t).damage, o.allow_incomplete, "roofline");
    analysis::join_trace_timeline(doc, o.traces);
    analysis::roofline_thresholds t;
    t.latency_pct = o.latency_pct;
    const auto a = analysis::analyse_roofline(doc, o.gpu, t);
    if (!o.svg.empty()) {
        std::vector<std::filesystem::path> read{o.input};
        if (!o.peaks.empty()) read.emplace_back(o.peaks);
        read.insert(read.end(), o.traces.begin(), o.traces.end());
        refuse_same_file(o.svg, read);
        write_file_atomically(o.svg, analysis::render_roofline_svg(a.points, a.roofs));
    }
    if (o.json) {
        auto j = to_json(a, doc);
        if (joined) j["joined_by_correlation"] = *joined;
        j["mixed_work"] = mixed;
        fmt::print("{}\n", j.dump(2));
    } else {
        print_table(a, doc, joined, mixed);
        if (!o.svg.empty()) fmt::print("\nchart: {}\n", o.svg);
    }
    return ok;
}

} // namespace

command add_roofline(CLI::App& root) {
    auto o = std::make_shared<roofline_options>();
    auto* app = root.add_subcommand("roofline", "Place kernels on the roofline of their GPU");
    app->add_option("input", o->input,
                    "A trace of `ktune profile --metrics roofline`, or per-kernel metrics "
                    "(ktune.kernel_metrics JSON)")
        ->required()
        ->check(CLI::ExistingFile);
    app->add_option("--gpu", o->gpu,
                    "GPU whose roofs to use: auto (from the input) or a name "
                    "from `ktune device --list`")
        ->capture_default_str();
    app->add_option("--svg", o->svg, "Write a log-log roofline chart (SVG) to this file");
    app->add_option("--peaks", o->peaks,
                    "Measured roofs: the JSON of `ktune device --measure --json`")
        ->check(CLI::ExistingFile);
    app->add_option("--trace", o->traces,
                    "The profile's .ktrace: launch counts, GPU time and idle gaps per kernel")
        ->check(CLI::ExistingFile);
    app->add_option("--dump-metrics", o->dump_metrics,
                    "Also write the per-launch metrics (ktune.kernel_metrics JSON) to this file");
    app->add_flag("--json", o->json, "Machine-readable output (schema ktune.roofline 1.1.0)");
    app->add_option("--latency-pct", o->latency_pct,
                    "Latency-bound below this % of both the DRAM and the compute roof")
        ->capture_default_str()
        ->check(finite_range(0.0, 100.0));
    add_allow_incomplete(app, o->allow_incomplete);
    return {app, [o] { return run(*o); }};
}

} // namespace ktune::cli
