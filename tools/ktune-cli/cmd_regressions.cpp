// ktune regressions --baseline BUILD --candidate BUILD [--db URL] [--gpu NAME] [--threshold 5%]
//                   [--json]
#include "command.hpp"

#include "ktune/store/regressions.hpp"

#include <cstdio>
#include <memory>

namespace ktune::cli {
namespace {

struct regressions_cli_options {
    std::string db;
    store::regressions_options r;
    double threshold_pct = 5;
    bool json = false;
};

} // namespace

command add_regressions(CLI::App& root) {
    auto o = std::make_shared<regressions_cli_options>();
    auto* app = root.add_subcommand(
        "regressions", "Per-kernel slowdowns between two builds' stored runs, per environment");
    app->add_option("--db", o->db,
                    "sqlite:PATH (default $XDG_DATA_HOME/ktune/ktune.db) or postgresql://…");
    app->add_option("--baseline", o->r.baseline, "Baseline build id")->required();
    app->add_option("--candidate", o->r.candidate, "Candidate build id")->required();
    app->add_option("--gpu", o->r.gpu, "Only runs on this GPU (its full name)");
    app->add_option("--threshold", o->threshold_pct, "Minimum effect, % (default 5)")
        ->check(CLI::Range(0.1, 100.0));
    app->add_flag("--json", o->json, "Machine-readable output (schema ktune.regressions 1.0.0)");
    return {app, [o] {
                o->r.diff.threshold = o->threshold_pct / 100;
                auto db = store::open_store(o->db);
                const auto r = store::regressions(db, o->r);
                const auto text =
                    o->json ? store::regressions_json(r) + "\n" : store::format_regressions(r);
                std::fputs(text.c_str(), stdout);
                return r.exit_code();
            }};
}

} // namespace ktune::cli
