// ktune ingest <trace...> [--db URL] [--objects DIR] [--build ID] [--json]
#include "command.hpp"

#include "ktune/store/ingest.hpp"

#include <cstdio>
#include <memory>

namespace ktune::cli {
namespace {

struct ingest_cli_options {
    std::vector<std::string> traces;
    std::string db;
    std::string objects;
    std::string build;
    bool json = false;
};

} // namespace

command add_ingest(CLI::App& root) {
    auto o = std::make_shared<ingest_cli_options>();
    auto* app = root.add_subcommand("ingest", "Store traces' kernel aggregates in the profile "
                                              "database (idempotent)");
    app->add_option("trace", o->traces,
                    "One or more .ktrace files (or `ktune bench` results files)")
        ->required()
        ->check(CLI::ExistingFile);
    app->add_option("--db", o->db,
                    "sqlite:PATH (default $XDG_DATA_HOME/ktune/ktune.db) or postgresql://…");
    app->add_option("--objects", o->objects,
                    "Object directory for the raw traces (default: 'objects' beside the DB)");
    app->add_option("--build", o->build, "Build id recorded with each run");
    app->add_flag("--json", o->json, "Machine-readable summary (schema ktune.ingest 1.0.0)");
    return {app, [o] {
                auto db = store::open_store(o->db, o->objects);
                const bool tty = stderr_is_tty();
                std::vector<store::ingest_result> results;
                std::size_t i = 0;
                for (const auto& path : o->traces) {
                    if (tty)
                        std::fprintf(stderr, "\ringest [%zu/%zu] %s\033[K", ++i, o->traces.size(),
                                     path.c_str());
                    results.push_back(store::ingest_trace(db, path, {.build = o->build}));
                }
                if (tty) std::fputs("\r\033[K", stderr);
                if (o->json) {
                    std::puts(store::ingest_json(results, db.describe()).c_str());
                    return static_cast<int>(ok);
                }
                for (const auto& r : results) {
                    if (r.kind == "bench")
                        std::printf("%s: %s bench results %.12s (%zu entries)\n", r.path.c_str(),
                                    r.already_stored ? "already stored:" : "stored",
                                    r.run.id.c_str(), r.groups);
                    else if (r.already_stored)
                        std::printf("%s: already stored (run %.12s)\n", r.path.c_str(),
                                    r.run.id.c_str());
                    else
                        std::printf("%s: stored run %.12s: %llu kernels in %zu groups, %zu "
                                    "verdicts (%.2f s)\n",
                                    r.path.c_str(), r.run.id.c_str(),
                                    static_cast<unsigned long long>(r.run.kernels), r.groups,
                                    r.verdicts, r.seconds);
                    if (!r.note.empty()) std::printf("  note: %s\n", r.note.c_str());
                }
                std::printf("store: %s\n", db.describe().c_str());
                return static_cast<int>(ok);
            }};
}

} // namespace ktune::cli
