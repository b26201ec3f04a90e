// ktune tune <op> --shape … [--shape …] [--dtype a,b] | ktune tune --plan FILE |
// ktune tune --space FILE [--strategy S] [--budget N] [--repeat R]
//                         [--seed S] [--target 1.05] [--batch N] [--compile-ahead]
//                         [--pipeline stream|ahead|lockstep] [--json]
// Op mode runs in tune_op.cpp; replay mode (a recorded space, no GPU) is printed here.
#include "cmd_gemm.hpp"
#include "command.hpp"
#include "tune_op.hpp"
#include "validators.hpp"

#include "ktune/core/error.hpp"
#include "ktune/tune/replay.hpp"
#include "ktune/tune/searcher.hpp"

#include <fmt/format.h>

#include <memory>
#include <thread>

namespace ktune::cli {
namespace {

struct tune_options {
    tune_op_options op;
    bool budget_set = false;
    std::string space;
    std::size_t repeat = 20;
    double target = 1.05;
    bool charge_compile = false;
    unsigned jobs = 0;
    bool compile_ahead = false;
};

std::string evals_text(double v, std::size_t budget) {
    return v > static_cast<double>(budget) ? std::string("-") : fmt::format("{:.0f}", v);
}

int run_replay(const tune_options& o) {
    if (o.repeat == 0) throw error(error_kind::usage, "--repeat must be at least 1");
    if (o.target < 1.0) throw error(error_kind::usage, "--target is a factor of the optimum, >= 1");
    const auto rec = tune::load_recorded_space(o.space);
    tune::replay_options ro;
    ro.strategy = o.op.strategy;
    ro.budget = static_cast<std::size_t>(o.op.budget);
    ro.seed = o.op.seed;
    ro.target = o.target;
    ro.charge_compile_time = o.charge_compile;
    ro.batch = o.op.batch;
    if (o.compile_ahead && !o.op.pipeline.empty() && o.op.pipeline != "ahead")
        throw error(error_kind::usage, "--compile-ahead is --pipeline ahead: drop one of them");
    ro.compile_ahead = o.compile_ahead || o.op.pipeline == "ahead";
    ro.stream = o.op.pipeline == "stream";
    (void)tune::make_searcher(ro.strategy); // unknown strategy: fail before loading work
    const std::size_t budget = tune::replay_budget(rec, ro);
    const unsigned jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
    const bool show = !o.op.json && stderr_is_tty();
    const auto runs =
        tune::replay_repeat(rec, ro, o.repeat, jobs, [&](std::size_t d, std::size_t n) {
            if (show) fmt::print(stderr, "\r  {} run {}/{} ", ro.strategy, d, n);
        });
    if (show) fmt::print(stderr, "\r{:40}\r", "");
    const auto s = tune::summarize(rec, ro, runs);
    const double opt = rec.optimum();

    if (o.op.json) {
        fmt::print("{}\n", tune::replay_report_json(rec, ro, runs));
        return ok;
    }

    fmt::print("ktune tune --space {}\n", rec.source);
    fmt::print("  recording  {} ({}){}{}\n", rec.kernel.empty() ? "kernel" : rec.kernel,
               rec.format == "t4" ? "T4" : "Kernel Tuner cache", rec.device.empty() ? "" : " on ",
               rec.device);
    fmt::print("  space      {} parameters, {} Cartesian configs, {} recorded: {} ran, {} failed\n",
               rec.space.axes().size(), rec.space.cartesian_size(), rec.configs.size(), s.valid,
               rec.configs.size() - s.valid);
    fmt::print("  optimum    {:.4g} ms; {} config{} within {:g}x (the needles)\n", opt, s.within,
               s.within == 1 ? "" : "s", ro.target);
    fmt::print("  search     {}, budget {} evaluations, {} seeded runs (seed {})\n\n", ro.strategy,
               budget, o.repeat, ro.seed);
    fmt::print("  {:>4}  {:>18}  {:>13}  {:>12}  {:>8}  {:>12}\n", "run", "seed",
               fmt::format("evals≤{:g}x", ro.target), "best/opt", "failed",
               o.charge_compile ? "tuning time" : "bench time");
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto& r = runs[i];
        fmt::print("  {:>4}  {:>#18x}  {:>13}  {:>12}  {:>8}  {:>11.1f}s\n", i + 1, r.seed,
                   r.evals_to_target ? fmt::format("{}", *r.evals_to_target) : "not reached",
                   r.best_time > 0 ? fmt::format("{:.4f}{}", r.best_time / opt,
                                                 r.tied > 1 ? fmt::format(" ({}≈)", r.tied) : "")
                                   : "-",
                   r.failures, r.tuning_s);
    }
    fmt::print("\n  evaluations to {:g}x optimum: median {} (IQR {}–{}), reached in {}/{} runs\n",
               ro.target, evals_text(s.evals.median, budget), evals_text(s.evals.q1, budget),
               evals_text(s.evals.q3, budget), s.reached, runs.size());
    // Random draws failed configs too, so its baseline counts all M recorded configs; the
    // ratios divide like by like (median by median) and, for reference, by random's mean.
    fmt::print("  random search expects: median {}, mean (M+1)/(K+1) = ({}+1)/({}+1) = {:.1f} "
               "(M counts failed configs: random draws them too)\n",
               evals_text(s.random.median, budget), s.recorded, s.within, s.random.mean);
    if (s.evals.median <= static_cast<double>(budget))
        fmt::print("  {}'s median is {:.3f}x random's median and {:.3f}x its mean\n", ro.strategy,
                   s.evals.median / s.random.median, s.evals.median / s.random.mean);
    fmt::print("  best found within the budget: median {:.4f}x optimum (IQR {:.4f}–{:.4f})\n",
               s.best_ratio.median, s.best_ratio.q1, s.best_ratio.q3);
    return ok;
}

} // namespace

command add_tune(CLI::App& root) {
    auto o = std::make_shared<tune_options>();
    auto* app = root.add_subcommand(
        "tune", "Search the configuration space of an op, or replay a recorded space (--space)");
    app->add_option("op", o->op.op, "Registered op to tune on the GPU (`ktune ops` lists them)");
    app->add_option("--shape", o->op.shapes,
                    "Op mode: problem shape, e.g. 4096x4096; repeat it to tune several shapes "
                    "in one process (the worker's set-up paid once)")
        ->allow_extra_args(false);
    app->add_option("--dtype", o->op.dtypes,
                    "Op mode: data type (default fp32); a list (bf16,fp32) tunes each")
        ->delimiter(',')
        ->allow_extra_args(false);
    app->add_option("--plan", o->op.plan,
                    "Op mode: a JSON plan of tunes run in one process, {\"tunes\": [{\"op\": "
                    "\"softmax\", \"shape\": \"8192x8192\", \"dtype\": \"bf16\", "
                    "\"budget\": 200}, ...]}; --strategy, --budget, --seed and --cache apply "
                    "where an entry does not say");
    app->add_option("--cache", o->op.cache, "Op mode: cache file for the winner");
    app->add_option("--redis", o->op.redis,
                    "Op mode: shared cache tier (redis://host:port/db or unix:///path.sock), "
                    "asked on a local miss; the winner is written to it too (fail-open)");
    app->add_option("--space", o->space,
                    "Replay a recorded space (Kernel Tuner cache .json/.json.gz or T4)");
    std::string names;
    for (const auto& s : tune::strategies())
        names += (names.empty() ? "" : ", ") + s.name;
    app->add_option("--strategy", o->op.strategy, "Search strategy: " + names)
        ->capture_default_str();
    app->add_option("--budget", o->op.budget,
                    "Evaluations per search (replay default: min(valid configs, 1000))")
        ->check(whole_range(0, 2147483647));
    app->add_option("--seed", o->op.seed, "Seed; the same seed gives the same output")
        ->capture_default_str()
        ->check(whole_range(0, 18446744073709551615ULL));
    app->add_option("--repeat", o->repeat, "Replay: seeded searches to run")
        ->capture_default_str()
        ->check(whole_range(1, 1000000));
    app->add_option("--target", o->target,
                    "Replay: 'found' means within this factor of the optimum")
        ->capture_default_str()
        ->check(finite_range(1.0, 1e6));
    app->add_flag("--charge-compile", o->charge_compile,
                  "Replay: charge the recorded compile time to each evaluation");
    app->add_option("--batch", o->op.batch,
                    "Configs per proposal. Op mode: a strategy that learns from its results "
                    "streams one in flight a compile thread, at most 16 a GPU (8 a GPU in "
                    "batches with --pipeline ahead); random and exhaustive 2 x the compile "
                    "threads. Replay: default the strategy's own; N replays a live tune's "
                    "batches or stream (docs/perf/search.md#live-batches, #streaming)")
        ->check(whole_range(0, 4096));
    app->add_flag("--compile-ahead", o->compile_ahead,
                  "Replay: propose each batch before the one before it is measured, as a live "
                  "tune compiling ahead (docs/perf/search.md#live-batches)");
    app->add_option("--pipeline", o->op.pipeline,
                    "How proposals meet results (docs/perf/search.md#streaming): stream (`--batch` "
                    "in flight, one proposed per result; op mode's default), ahead (batches, the "
                    "next compiling while one is measured; --compile-ahead) or lockstep (replay's "
                    "default)")
        ->check(CLI::IsMember({"stream", "ahead", "lockstep"}));
    app->add_option("--jobs", o->jobs, "Replay: runs in parallel (default: all cores; same output)")
        ->check(whole_range(0, 4096));
    app->add_flag("--vs-torch", o->op.vs_torch,
                  "Op mode: also time PyTorch's equivalent with the same protocol and print the "
                  "speed-up (python3 with torch; KTUNE_PYTHON picks the interpreter)");
    app->add_option("--keep-worker", o->op.keep_worker,
                    "Op mode: keep the measurement worker (its GPU context and buffers) this "
                    "many seconds after the tune, for the next `ktune tune` to reuse; one tune at "
                    "a time uses it, another gets a worker of its own")
        ->check(CLI::Range(0, 86400));
    app->add_option("--gpus", o->op.gpus,
                    "Op mode: tune on these GPUs of one kind, all or ordinals 0,1,...: one worker "
                    "per GPU and one compile pool; a plan's tunes are spread over them, a single "
                    "tune's candidates too, its finalists re-timed on every GPU");
    app->add_option("--kernel", o->op.kernel,
                    "Tune a user kernel from its spec (ktune.kernel JSON beside its .cu; `ktune "
                    "kernel check` validates one): same search, compile pool, worker, "
                    "correctness gate and cache as the built-in ops");
    app->add_option("--problem", o->op.problem,
                    "With --kernel: the problem's dimensions, e.g. M=4096,N=4096,K=4096 "
                    "(default: the spec's example dimensions)");
    app->add_option("--capture", o->op.capture,
                    "With --kernel: tune on captured launches ($KTUNE_CAPTURE of an application "
                    "using the launcher): a capture directory, or a folder of them (each of this "
                    "kernel is tuned); the application's outputs are the reference");
    app->add_option("--misses", o->op.misses,
                    "With --kernel: tune every problem of this kernel in a launcher's misses file "
                    "(<cache>.misses.jsonl)");
    app->add_option("--record-space", o->op.record_space,
                    "Write every measured candidate as a recorded space that --space replays "
                    "(Kernel Tuner's cache format); with --strategy exhaustive, the whole space");
    app->add_flag("--json", o->op.json, "Machine-readable output (schema ktune.tune.replay 2.0.0)");
    auto gemm_opts = add_gemm_options(app); // `ktune tune gemm`: cuBLASLt's algorithms
    return {app, [o, gemm_opts] {
                if (!o->op.kernel.empty()) {
                    if (!o->space.empty())
                        throw error(error_kind::usage, "give either --kernel SPEC or --space FILE");
                    return run_tune_kernel(o->op);
                }
                if (!o->op.problem.empty() || !o->op.capture.empty() || !o->op.misses.empty())
                    throw error(error_kind::usage,
                                "--problem, --capture and --misses go with --kernel SPEC");
                if (o->op.op == "gemm" && o->space.empty()) return run_tune_gemm(o->op, *gemm_opts);
                if (!o->space.empty()) {
                    if (!o->op.op.empty() || !o->op.plan.empty())
                        throw error(error_kind::usage,
                                    "give either an op, --plan FILE or --space FILE, not two");
                    return run_replay(*o);
                }
                if (o->op.op.empty() && o->op.plan.empty())
                    throw error(error_kind::usage, "ktune tune needs an op (`ktune ops` lists "
                                                   "them), --plan FILE or --space FILE");
                return run_tune_op(o->op);
            }};
}

} // namespace ktune::cli
