// ktune profile [-o out.ktrace] [--delay S] [--duration S] [--nvtx-link M] [--limit N]
//               [--metrics SET [--kernels RE] [--sample 1/N] [--max-metric-kernels K]
//                [--deny RE] [--peaks FILE] [--max-passes P]] -- <cmd> [args...]
#include "command.hpp"
#include "profile_metrics.hpp"

#include "ktune/analysis/aggregate.hpp"
#include "ktune/analysis/top.hpp"
#include "ktune/store/ingest.hpp"
#include "ktune/store/run_sampling.hpp"
#include "ktune/trace/launch.hpp"

#include <fmt/format.h>

#include <memory>

namespace ktune::cli {
namespace {

struct profile_options {
    trace::launch_request request;
    std::size_t limit = 15;
    bool no_top = false;
    profile_metrics_options metrics;
    std::string db;    ///< ingest the traces into this store as the run ends ("" = don't)
    std::string build; ///< build id recorded with the ingested runs
    std::string sample_runs, ranks; ///< fleet run sampling (store/run_sampling.hpp)
};

// Fleet run sampling: whether this run is profiled, and its per-rank trace name.
store::sampling_decision apply_run_sampling(profile_options& o) {
    auto d = store::decide(store::parse_run_sampling(o.sample_runs, o.ranks),
                           store::identity_from_environment());
    if (!d.profile) fmt::print(stderr, "ktune profile: not profiled: {}\n", d.reason);
    if (!o.sample_runs.empty() || !o.ranks.empty())
        o.request.output = store::with_suffix(o.request.output, d.rank_suffix);
    return d;
}

void ingest_traces(const profile_options& o, const std::vector<std::string>& traces,
                   const std::string& sampling) {
    if (o.db.empty()) return;
    auto db = store::open_store(o.db);
    for (const auto& t : traces) {
        const auto in = store::ingest_trace(db, t, {.build = o.build, .sampling = sampling});
        fmt::print(stderr, "ktune profile: {} run {:.12} in {}\n",
                   in.already_stored ? "already stored:" : "stored", in.run.id, db.describe());
    }
}

} // namespace

command add_profile(CLI::App& root) {
    auto o = std::make_shared<profile_options>();
    o->request.output = "ktune.ktrace";
    auto* app = root.add_subcommand("profile", "Record every kernel of a program through CUPTI");
    app->add_option("-o,--output", o->request.output,
                    "Trace file; child processes write "
                    "<stem>.<pid>.ktrace beside it")
        ->capture_default_str();
    app->add_option("--delay", o->request.delay_s, "Seconds before recording starts")
        ->check(CLI::NonNegativeNumber);
    app->add_option("--duration", o->request.duration_s, "Seconds of recording (0: to the end)")
        ->check(CLI::NonNegativeNumber);
    app->add_option("--record", o->request.record,
                    "What to record besides kernels: comma list of memcpy,memset,sync,nvtx "
                    "(default: memcpy,memset,nvtx; sync costs launch overhead)");
    app->add_option("--nvtx-link", o->request.nvtx_link,
                    "How kernels learn their NVTX range: window (default: one marker per range "
                    "boundary, the range open in the process at launch; callbacks once two "
                    "threads have ranges open) or callback (the launching thread's range, "
                    "+0.6 us per launch)")
        ->check(CLI::IsMember({"window", "callback"}));
    app->add_option("--graph-trace", o->request.graph_trace,
                    "CUDA graph launches: graph (default: one record per launch, its first "
                    "node's start to its last node's end) or node (one record per kernel, copy "
                    "and memset node; costs CUPTI a record per node; the default with --metrics)")
        ->check(CLI::IsMember({"graph", "node"}));
    app->add_option("--limit", o->limit, "Rows of the top table printed at the end")
        ->capture_default_str();
    app->add_flag("--no-top", o->no_top, "Do not print the top table");
    add_profile_metrics_options(*app, o->metrics);
    app->add_option("--db", o->db,
                    "Ingest the traces into this profile store as the run ends (sqlite:PATH or "
                    "postgresql://…; see `ktune ingest`)");
    app->add_option("--build", o->build, "With --db: build id recorded with the runs");
    app->add_option("--sample-runs", o->sample_runs,
                    "Profile 1 job in N (1/N), chosen by a hash of the job id (SLURM_JOB_ID, "
                    "KTUNE_JOB_ID, …): every rank of a chosen job; the others run unprofiled");
    app->add_option("--ranks", o->ranks,
                    "Profile only these ranks (RANK, SLURM_PROCID, …), e.g. 0,8-15; each rank "
                    "writes <stem>.rank<R>.ktrace");
    app->add_option("command", o->request.command, "The program and its arguments (after --)")
        ->required();
    app->positionals_at_end();
    return {app, [o] {
                export_profile_metrics(o->metrics); // validated (and refused) before the run
                const auto sampling = apply_run_sampling(*o);
                if (!sampling.profile) return store::run_unprofiled(o->request.command);
                const auto r = trace::run_profiled(o->request);
                if (r.traces.empty()) {
                    fmt::print(stderr,
                               "ktune profile: no trace written: the program never initialised "
                               "CUDA, or profiling was refused (see the message above)\n");
                    return r.exit_code;
                }
                if (!o->no_top) {
                    const auto report = analysis::aggregate(r.traces, analysis::group_by::kernel);
                    fmt::print("{}", analysis::format_top(report, o->limit));
                }
                for (const auto& t : r.traces)
                    fmt::print(stderr, "ktune profile: wrote {}\n", t);
                ingest_traces(*o, r.traces, sampling.label);
                if (!o->metrics.set.empty())
                    fmt::print(stderr, "ktune profile: roofline verdicts: ktune roofline {}\n",
                               r.traces.front());
                if (r.exit_code != 0)
                    fmt::print(stderr, "ktune profile: the program exited with {}\n", r.exit_code);
                return r.exit_code;
            }};
}

} // namespace ktune::cli
