// ktune roofline <trace.ktrace | metrics.json> [--gpu auto|<name>] [--svg file] [--json]
#include "command.hpp"
#include "damage.hpp"
#include "validators.hpp"

#include "ktune/analysis/roofline.hpp"
#include "ktune/analysis/roofline_report.hpp"
#include "ktune/analysis/roofline_svg.hpp"
#include "ktune/core/atomic_file.hpp"
#include "ktune/core/error.hpp"
#include "ktune/metrics/kernel_metrics.hpp"
#include "ktune/trace/trace_file.hpp"

#include <fmt/format.h>

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
        fmt::print("{}\n", analysis::roofline_json(a, doc, joined, mixed));
    } else {
        fmt::print("{}", analysis::format_roofline(a, doc, joined, mixed));
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
