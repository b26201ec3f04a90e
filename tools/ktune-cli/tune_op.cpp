// `ktune tune <op> --shape … --dtype …`: parsing lives in cmd_tune.cpp, the loop in the library
// (ktune/tune/tuner.hpp); this file turns options into a request and the report into text/JSON.
#include "tune_op.hpp"

#include "command.hpp"

#include "ktune/cache/store.hpp"
#include "ktune/core/atomic_file.hpp"
#include "ktune/core/device.hpp"
#include "ktune/core/error.hpp"
#include "ktune/core/gpu_peaks.hpp"
#include "ktune/kernel/launch_misses.hpp"
#include "ktune/kernel/spec.hpp"
#include "ktune/tune/tuner.hpp"
#include "ktune/tune/tuner_json.hpp"
#include "ktune/tune/tuner_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <vector>

namespace ktune::cli {
namespace {

std::map<std::string, int> status_counts(const tune::tune_report& r) {
    std::map<std::string, int> m;
    for (const auto& c : r.candidates)
        ++m[std::string(tune::to_string(c.status))];
    return m;
}

void print_progress(const tune::tune_report& r, std::size_t done, std::size_t budget) {
    double best = 0;
    for (const auto& c : r.candidates)
        if (c.status == tune::eval_status::ok && (best == 0 || c.run.median_ms < best))
            best = c.run.median_ms;
    fmt::print(stderr, "\r  [{:>4}/{:<4}] best {:.4f} ms, last: {:<14}", done, budget, best,
               tune::to_string(r.candidates.back().status));
    if (done == budget) fmt::print(stderr, "\n");
}

void torch_text(const tune::tune_report& r, const std::optional<tune::torch_timing>& t) {
    if (!t) return;
    if (!t->ok) {
        fmt::print("  PyTorch: not timed: {}\n", t->message);
        return;
    }
    if (r.winner.cfg.empty()) return;
    const double ms = r.winner.time.median_us / 1000;
    fmt::print("  PyTorch {} (torch {}) {:.4f} ms: speed-up {:.2f}x\n", t->expression,
               t->torch_version, t->median_ms, t->median_ms / ms);
}

void print_text(const tune::tune_report& r) {
    const auto& w = r.winner;
    const double med_ms = w.time.median_us / 1000;
    if (r.cache_hit) {
        fmt::print("cache hit (exact): {}\n  {}\n  median {:.4f} ms, 95% CI [{:.4f}, {:.4f}] ms, "
                   "{} samples; measured {} on {}\n",
                   w.key.to_string(), w.cfg.to_string(), med_ms, w.time.ci_low_us / 1000,
                   w.time.ci_high_us / 1000, w.time.samples, w.origin.date, w.origin.gpu_name);
        return;
    }
    const auto counts = status_counts(r);
    std::string cs;
    for (const auto& [k, v] : counts)
        cs += fmt::format("{}{} {}", cs.empty() ? "" : ", ", k, v);
    if (w.cfg.empty()) {
        fmt::print("no candidate passed the check: {} evaluated ({})\n", r.candidates.size(), cs);
        return;
    }
    const double gbs = r.bytes / (med_ms * 1e6);
    fmt::print("winner  {}\n", w.cfg.to_string());
    fmt::print("  median {:.4f} ms, 95% CI [{:.4f}, {:.4f}] ms, {} samples{}\n", med_ms,
               w.time.ci_low_us / 1000, w.time.ci_high_us / 1000, w.time.samples,
               r.tied > 1 ? fmt::format("; {} configs tie within noise", r.tied) : "");
    if (r.bytes > 0) { // a user kernel without a byte model has no bandwidth to show
        fmt::print("  {:.0f} GB/s = {:.1f} % of measured copy bandwidth ({:.0f} GB/s)", gbs,
                   100 * gbs / r.copy_gbs, r.copy_gbs);
        if (auto p = find_gpu_peaks(w.origin.gpu_name))
            fmt::print(", {:.1f} % of spec DRAM peak", 100 * gbs / p->dram_gbs);
        fmt::print("\n");
    }
    if (r.baseline.status == tune::eval_status::ok)
        fmt::print("  default config {:.4f} ms: speed-up {:.2f}x\n", r.baseline.run.median_ms,
                   r.baseline.run.median_ms / med_ms);
    else
        fmt::print("  default config failed: {}\n", tune::to_string(r.baseline.status));
    const std::string loop = r.pipeline == "stream"
                                 ? fmt::format("streamed, {} in flight", r.in_flight)
                                 : fmt::format("batches of {}", r.in_flight);
    fmt::print("  {} candidates ({}), strategy {} ({})\n", r.candidates.size(), cs, r.strategy,
               loop);
    fmt::print("  {:.2f} s wall (set-up {:.2f} s, confirmation {:.2f} s), GPU busy {:.2f} s "
               "({:.0f} %), compile {:.1f} CPU-s in {}, {} worker process{}\n",
               r.wall_s, r.setup_s, r.confirm_s, r.gpu_busy_s, 100 * r.gpu_busy_s / r.wall_s,
               r.compile_s,
               r.compile_servers ? fmt::format("{} compile servers", r.compile_servers)
                                 : std::string("threads"),
               r.workers_spawned, r.workers_spawned == 1 ? "" : "es");
    if (r.winner_index < r.candidates.size() && r.candidates[r.winner_index].per_gpu.size() > 1) {
        std::string per;
        for (const auto& t : r.candidates[r.winner_index].per_gpu)
            per += fmt::format("{}GPU {} {:.4f} ms (n={})", per.empty() ? "" : ", ", t.gpu,
                               t.median_ms, t.samples);
        fmt::print("  on {} GPUs, finalists re-timed on each: {}\n", r.gpus.size(), per);
    }
    if (r.worker_kept) fmt::print("  on a kept worker (--keep-worker)\n");
    if (!r.keep_note.empty()) fmt::print("  no kept worker: {}\n", r.keep_note);
    fmt::print("cached: {}\n", w.key.to_string());
}

std::string problem_text(const tune::tune_request& rq) {
    return tune::labels_of(rq).to_string();
}

/// One summary row per tune: what it found, and what it cost on the shared session.
void plan_table(const std::vector<tune::tune_request>& rqs,
                const std::vector<tune::plan_outcome>& outs,
                const std::vector<std::optional<tune::torch_timing>>& torch) {
    fmt::print("{:>3}  {:<28} {:<10} {:>10} {:>8} {:>8} {:>8} {:>6} {:>7} {:>6}\n", "#", "tune",
               "result", "median ms", "% copy", "vs dflt", "vs torch", "cands", "wall s", "busy");
    for (std::size_t i = 0; i < outs.size(); ++i) {
        const auto& o = outs[i];
        const auto& r = o.report;
        const std::string what = problem_text(rqs[i]);
        if (!o.ok || r.winner.cfg.empty()) {
            fmt::print("{:>3}  {:<28} {:<10}\n", i + 1, what, o.ok ? "no winner" : "failed");
            continue;
        }
        const double ms = r.winner.time.median_us / 1000;
        const std::string copy =
            r.copy_gbs > 0 ? fmt::format("{:.1f}", 100 * r.bytes / (ms * 1e6) / r.copy_gbs) : "-";
        const std::string dflt = !r.cache_hit && r.baseline.status == tune::eval_status::ok
                                     ? fmt::format("{:.2f}x", r.baseline.run.median_ms / ms)
                                     : "-";
        const std::string vs_torch =
            torch[i] && torch[i]->ok ? fmt::format("{:.2f}x", torch[i]->median_ms / ms) : "-";
        if (r.cache_hit) {
            fmt::print("{:>3}  {:<28} {:<10} {:>10.4f} {:>8} {:>8} {:>8}\n", i + 1, what,
                       "cache hit", ms, copy, dflt, vs_torch);
            continue;
        }
        fmt::print("{:>3}  {:<28} {:<10} {:>10.4f} {:>8} {:>8} {:>8} {:>6} {:>7.2f} {:>5.0f}%\n",
                   i + 1, what, "tuned", ms, copy, dflt, vs_torch, r.candidates.size(), r.wall_s,
                   100 * r.gpu_busy_s / r.wall_s);
    }
}

void plan_footer(const std::vector<tune::tune_request>& rqs,
                 const std::vector<tune::plan_outcome>& outs, double wall_s) {
    for (std::size_t i = 0; i < outs.size(); ++i) {
        const auto& o = outs[i];
        if (!o.ok)
            fmt::print("  #{} {}: {}\n", i + 1, problem_text(rqs[i]), o.error);
        else if (o.report.winner.cfg.empty())
            fmt::print("  #{} {}: no candidate passed the check ({} evaluated)\n", i + 1,
                       problem_text(rqs[i]), o.report.candidates.size());
        else
            fmt::print("  #{} {}\n", i + 1, o.report.winner.cfg.to_string());
    }
    // The session's point: set-up paid by the first searched tune only.
    int searched = 0;
    double later_wall = 0, later_busy = 0, setup = 0;
    for (const auto& o : outs) {
        if (!o.ok || o.report.cache_hit) continue;
        if (searched++ == 0) {
            setup = o.report.setup_s;
            continue;
        }
        later_wall += o.report.wall_s;
        later_busy += o.report.gpu_busy_s;
    }
    if (searched == 0) {
        fmt::print("{} tunes in {:.2f} s, none searched (the cache answered)\n", outs.size(),
                   wall_s);
        return;
    }
    std::map<int, int> per_gpu;
    std::size_t moved = 0;
    for (const auto& o : outs) {
        ++per_gpu[o.gpu];
        moved += o.moved;
    }
    if (per_gpu.size() > 1 || moved > 0) {
        std::string spread;
        for (const auto& [g, n] : per_gpu)
            spread += fmt::format("{}GPU {}: {}", spread.empty() ? "" : ", ", g, n);
        fmt::print("{} tunes in {:.2f} s over {} GPUs ({}){}\n", outs.size(), wall_s,
                   per_gpu.size(), spread,
                   moved ? fmt::format("; {} moved off a lost GPU", moved) : std::string());
        return;
    }
    fmt::print("{} tunes in {:.2f} s, {} searched on one worker (set-up {:.2f} s, paid once)",
               outs.size(), wall_s, searched, setup);
    if (later_wall > 0)
        fmt::print("; GPU busy over the tunes after the first: {:.0f} %",
                   100 * later_busy / later_wall);
    fmt::print("\n");
}

int run_tune_plan(const std::vector<tune::tune_request>& rqs, const tune_op_options& o) {
    const bool show = !o.json && stderr_is_tty();
    const auto t0 = std::chrono::steady_clock::now();
    const auto outs = tune::run_plan(
        rqs,
        [&](std::size_t i, const tune::tune_request& rq, bool hit) {
            if (!o.json)
                fmt::print(stderr, "[{}/{}] ktune tune {}: {}\n", i + 1, rqs.size(),
                           problem_text(rq),
                           hit ? std::string("cache hit") : "strategy " + rq.strategy);
        },
        show ? tune::tune_progress(print_progress) : tune::tune_progress{});
    const double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // After every tune: the session's worker has exited, PyTorch has the GPU to itself.
    std::vector<std::optional<tune::torch_timing>> torch(outs.size());
    if (o.vs_torch)
        for (std::size_t i = 0; i < outs.size(); ++i)
            if (outs[i].ok) torch[i] = tune::time_torch_equivalent(rqs[i]);
    bool all_ok = true;
    for (const auto& out : outs)
        all_ok = all_ok && out.ok && !out.report.winner.cfg.empty();
    if (o.json) {
        fmt::print("{}\n", tune::tune_plan_json(rqs, outs, torch, wall_s));
        return all_ok ? ok : finding;
    }
    plan_table(rqs, outs, torch);
    plan_footer(rqs, outs, wall_s);
    for (const auto& t : torch)
        if (t && !t->ok) {
            fmt::print("  PyTorch: not timed: {}\n", t->message);
            break;
        }
    fmt::print("cached: {}\n", rqs.front().cache_file.empty() ? cache::default_cache_path().string()
                                                              : rqs.front().cache_file.string());
    return all_ok ? ok : finding;
}

int run_one(const tune::tune_request& rq, const tune_op_options& o) {
    if (!o.json) fmt::print(stderr, "ktune tune {}: strategy {}\n", problem_text(rq), rq.strategy);
    const bool show = !o.json && stderr_is_tty();
    const auto report =
        tune::tune_op(rq, show ? tune::tune_progress(print_progress) : tune::tune_progress{});
    if (!o.record_space.empty() && !report.cache_hit) {
        write_file_atomically(o.record_space, tune::recorded_space_json(report, rq));
        if (!o.json)
            fmt::print(stderr, "recorded {} candidates in {} (replay: ktune tune --space {})\n",
                       report.candidates.size(), o.record_space, o.record_space);
    }
    // After the tune: the worker has stopped using the GPU.
    std::optional<tune::torch_timing> torch;
    if (o.vs_torch) torch = tune::time_torch_equivalent(rq);
    if (o.json) {
        fmt::print("{}\n", tune::tune_report_json(report, rq, torch));
    } else {
        print_text(report);
        torch_text(report, torch);
    }
    return report.winner.cfg.empty() ? finding : ok;
}

} // namespace

namespace {
/// DIR itself when it is a capture, else every capture of `kernel` directly under it (sorted).
std::vector<std::filesystem::path> capture_dirs(const std::string& dir, const std::string& kernel) {
    namespace fs = std::filesystem;
    if (fs::exists(fs::path(dir) / "capture.json")) return {dir};
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw error(error_kind::input,
                    fmt::format("{}: not a directory (--capture takes a capture directory or a "
                                "folder of them, as $KTUNE_CAPTURE names)",
                                dir));
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.is_directory() && fs::exists(e.path() / "capture.json") &&
            e.path().filename().string().starts_with(kernel + "-"))
            out.push_back(e.path());
    std::sort(out.begin(), out.end());
    if (out.empty())
        throw error(error_kind::input,
                    fmt::format("{}: no capture of kernel '{}' (directories named {}-<hash>-...)",
                                dir, kernel, kernel));
    return out;
}

/// The distinct problems of `kernel` in a misses file, in file order.
std::vector<kernel::problem> missed_problems(const std::string& file, const std::string& kernel) {
    if (!std::filesystem::exists(file))
        throw error(error_kind::input, fmt::format("{}: no such misses file", file));
    std::vector<kernel::problem> out;
    for (const auto& m : kernel::read_misses(file)) {
        if (m.kernel != kernel) continue;
        auto p = kernel::parse_problem(m.problem);
        if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(std::move(p));
    }
    if (out.empty())
        throw error(error_kind::input, fmt::format("{}: no miss of kernel '{}'", file, kernel));
    return out;
}

tune::tune_request base_request(const tune_op_options& o) {
    tune::tune_request base;
    base.strategy = o.strategy;
    base.budget = static_cast<std::size_t>(o.budget > 0 ? o.budget : 0);
    base.seed = o.seed;
    base.cache_file = o.cache;
    base.shared_cache = o.redis;
    base.keep_worker_s = o.keep_worker;
    base.batch = o.batch;
    if (!o.pipeline.empty()) {
        base.stream = o.pipeline == "stream";
        base.compile_ahead = o.pipeline != "lockstep";
    }
    if (!o.gpus.empty()) {
        if (o.keep_worker > 0)
            throw error(error_kind::usage,
                        "--keep-worker serves CUDA's default device only: drop --gpus or it");
        base.gpus = tune::parse_gpus(o.gpus, query_devices());
    }
    return base;
}
} // namespace

int run_tune_kernel(const tune_op_options& o) {
    if (!o.op.empty() || !o.shapes.empty() || !o.dtypes.empty() || !o.plan.empty())
        throw error(error_kind::usage,
                    "--kernel tunes the spec's kernel: give its dimensions with --problem "
                    "M=..,N=.. (the spec's arguments fix the element types), not an op, "
                    "--shape, --dtype or --plan");
    if (o.vs_torch)
        throw error(error_kind::usage, "--vs-torch times PyTorch's equivalent of a built-in op; "
                                       "a user kernel has none");
    if (static_cast<int>(!o.problem.empty()) + static_cast<int>(!o.capture.empty()) +
            static_cast<int>(!o.misses.empty()) >
        1)
        throw error(error_kind::usage,
                    "give one of --problem, --capture DIR and --misses FILE with --kernel");
    tune::tune_request base = base_request(o);
    base.kernel_spec = o.kernel;
    const kernel::kernel_spec spec = kernel::load_spec(o.kernel);
    std::vector<tune::tune_request> requests;
    if (!o.capture.empty()) {
        for (const auto& dir : capture_dirs(o.capture, spec.name)) {
            tune::tune_request rq = base;
            rq.kernel_capture = dir;
            requests.push_back(std::move(rq));
        }
    } else if (!o.misses.empty()) {
        for (const auto& p : missed_problems(o.misses, spec.name)) {
            tune::tune_request rq = base;
            rq.kernel_problem = p;
            requests.push_back(std::move(rq));
        }
    } else {
        tune::tune_request rq = base;
        rq.kernel_problem =
            o.problem.empty() ? spec.example_problem() : kernel::parse_problem(o.problem);
        if (o.problem.empty() && !o.json)
            fmt::print(stderr, "no --problem: the spec's example dimensions {}\n",
                       rq.kernel_problem.to_string());
        requests.push_back(std::move(rq));
    }
    // Every spec, capture and problem is checked before any GPU work.
    for (const auto& rq : requests)
        (void)tune::labels_of(rq);
    if (requests.size() == 1) return run_one(requests.front(), o);
    return run_tune_plan(requests, o);
}

int run_tune_op(const tune_op_options& o) {
    if (!o.plan.empty() && (!o.op.empty() || !o.shapes.empty()))
        throw error(error_kind::usage, "give either --plan FILE or an op with --shape, not both");
    if (o.plan.empty() && o.shapes.empty())
        throw error(error_kind::usage,
                    fmt::format("ktune tune {} needs --shape ROWSxCOLS (several --shape, or "
                                "--plan FILE, tune several problems in one process)",
                                o.op));
    const tune::tune_request base = base_request(o);
    const auto plan =
        o.plan.empty()
            ? tune::plan_product({o.op}, o.shapes,
                                 o.dtypes.empty() ? std::vector<std::string>{"fp32"} : o.dtypes)
            : tune::load_tune_plan(o.plan);
    // Every op, shape, dtype and strategy is checked before any GPU work.
    const auto requests = tune::plan_requests(plan, base);
    if (requests.size() == 1 && o.plan.empty()) return run_one(requests.front(), o);
    return run_tune_plan(requests, o);
}

} // namespace ktune::cli
