// ktune top <trace...> [--by kernel|launch|nvtx|nvtx-path] [--limit N] [--json]
#include "command.hpp"
#include "damage.hpp"
#include "validators.hpp"

#include "ktune/analysis/aggregate.hpp"
#include "ktune/analysis/top.hpp"

#include <cstdio>
#include <memory>

namespace ktune::cli {
namespace {

struct top_options {
    std::vector<std::string> traces;
    std::string by = "kernel";
    std::size_t limit = 20;
    bool json = false;
    bool allow_incomplete = false;
};

} // namespace

command add_top(CLI::App& root) {
    auto o = std::make_shared<top_options>();
    auto* app = root.add_subcommand("top", "Rank kernels by their share of GPU time");
    app->add_option("trace", o->traces, "One or more .ktrace files (runs, ranks): aggregated")
        ->required()
        ->check(CLI::ExistingFile);
    app->add_option(
           "--by", o->by,
           "Group by kernel, launch (kernel + shape), nvtx (kernel time by the innermost NVTX "
           "range open at launch) or nvtx-path (by nested range path)")
        ->capture_default_str();
    app->add_option("--limit", o->limit, "Rows to show (0: all)")
        ->capture_default_str()
        ->check(whole_range(0, 1000000000));
    app->add_flag("--json", o->json, "Machine-readable output (schema ktune.top 1.1.0)");
    add_allow_incomplete(app, o->allow_incomplete);
    return {app, [o] {
                const auto report = analysis::aggregate(o->traces, analysis::parse_group_by(o->by));
                for (const auto& t : report.traces)
                    if (!t.complete) refuse_damage(t.damage, o->allow_incomplete, "top");
                const std::string text = o->json ? analysis::top_json(report, o->limit) + "\n"
                                                 : analysis::format_top(report, o->limit);
                std::fputs(text.c_str(), stdout);
                return static_cast<int>(ok);
            }};
}

} // namespace ktune::cli
