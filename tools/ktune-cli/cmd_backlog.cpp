// ktune backlog [--db URL] [--gpu NAME] [--build ID] [--limit N] [--json]
#include "command.hpp"

#include "ktune/store/backlog.hpp"

#include <cstdio>
#include <memory>

namespace ktune::cli {
namespace {

struct backlog_cli_options {
    std::string db;
    store::backlog_options backlog;
    bool json = false;
};

} // namespace

command add_backlog(CLI::App& root) {
    auto o = std::make_shared<backlog_cli_options>();
    auto* app = root.add_subcommand(
        "backlog", "What to tune next: kernels ranked by fleet GPU time, with the tune command");
    app->add_option("--db", o->db,
                    "sqlite:PATH (default $XDG_DATA_HOME/ktune/ktune.db) or postgresql://…");
    app->add_option("--gpu", o->backlog.filter.gpu, "Only runs on this GPU (its full name)");
    app->add_option("--build", o->backlog.filter.build, "Only runs of this build id");
    app->add_option("--limit", o->backlog.limit, "Rows to show (0: all)")->capture_default_str();
    app->add_flag("--json", o->json, "Machine-readable output (schema ktune.backlog 1.0.0)");
    return {app, [o] {
                auto db = store::open_store(o->db);
                const auto r = store::backlog(db, o->backlog);
                const auto text =
                    o->json ? store::backlog_json(r) + "\n" : store::format_backlog(r);
                std::fputs(text.c_str(), stdout);
                return static_cast<int>(ok);
            }};
}

} // namespace ktune::cli
