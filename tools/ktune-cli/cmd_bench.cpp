// ktune bench <suite.json> -o results.json [--repeat N] [--skip-unavailable] [--stale-band 3%]
#include "command.hpp"
#include "ktune/guard/op_runtime.hpp"

#include "ktune/core/atomic_file.hpp"
#include "ktune/guard/suite.hpp"

#include <fmt/format.h>

#include <memory>
#include <string>

namespace ktune::cli {
namespace {

struct bench_cli {
    std::string suite;
    std::string output = "results.json";
    int repeat = 0;
    bool skip_unavailable = false;
    double stale_band = 3; ///< percent
};

int run_bench(const bench_cli& o) {
    const guard::suite s = guard::read_suite(o.suite);
    refuse_same_file(o.output, {o.suite});
    guard::bench_options opts;
    opts.repeat_override = o.repeat;
    opts.skip_unavailable = o.skip_unavailable;
    opts.hooks =
        guard::op_runtime_hooks(s, {.stale_band = o.stale_band / 100}, opts.unavailable_reason);
    if (stderr_is_tty())
        opts.progress = [](std::string_view entry, int run, int runs) {
            fmt::print(stderr, "\r\033[Kbench {}: run {}/{}", entry, run, runs);
        };
    const guard::results r = guard::run_suite(s, opts);
    if (stderr_is_tty()) fmt::print(stderr, "\r\033[K");
    guard::write_results(r, o.output);
    std::size_t ok_entries = 0, unavailable = 0, failed = 0;
    for (const auto& e : r.entries) {
        if (e.status == "ok") {
            ++ok_entries;
        } else if (e.status == "failed") {
            ++failed;
            fmt::print(stderr, "ktune bench: {} failed: {}\n", e.data.key(), e.detail);
        } else if (unavailable++ == 0) {
            fmt::print(stderr, "ktune bench: entries unavailable: {}\n", e.detail);
        }
    }
    fmt::print("ktune bench: suite '{}', {} entries measured{}{} -> {}\n", r.suite, ok_entries,
               unavailable ? fmt::format(", {} unavailable", unavailable) : "",
               failed ? fmt::format(", {} FAILED", failed) : "", o.output);
    for (const auto& w : r.stale_winners)
        fmt::print("stale winner: {}: {} now beaten by {} ({:.1f} % faster)\n", w.key, w.winner,
                   w.better, 100 * w.rel_gain);
    // A failed entry is a broken suite (exit 2, like a failing command), over a stale winner.
    if (failed) return usage_error;
    return r.stale_winners.empty() ? ok : finding;
}

} // namespace

command add_bench(CLI::App& root) {
    auto o = std::make_shared<bench_cli>();
    auto* app = root.add_subcommand(
        "bench", "Run a pinned suite and record timing distributions (schema ktune.results)");
    app->add_option("suite", o->suite, "Suite file (schema ktune.suite)")
        ->required()
        ->check(CLI::ExistingFile);
    app->add_option("-o,--output", o->output, "Results file (default results.json)");
    app->add_option("--repeat", o->repeat, "Timed runs per entry, replacing the suite's");
    app->add_flag("--skip-unavailable", o->skip_unavailable,
                  "Record entries this machine cannot run (op entries and cache re-validation "
                  "without a GPU) as unavailable instead of failing");
    app->add_option("--stale-band", o->stale_band,
                    "Percent by which a re-measured runner-up must beat a cached winner to "
                    "report it stale (default 3)")
        ->check(CLI::Range(0.1, 50.0));
    return {app, [o] { return run_bench(*o); }};
}

} // namespace ktune::cli
