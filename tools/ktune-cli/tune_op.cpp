// `ktune tune <op> --shape … --dtype …`: parsing lives in cmd_tune.cpp, the loop in the library
// (ktune/tune/tuner.hpp); this file turns options into a request and the report into text/JSON.
#include "tune_op.hpp"

#include "command.hpp"

#include "ktune/core/device.hpp"
#include "ktune/core/gpu_peaks.hpp"
#include "ktune/tune/tuner.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <map>
#include <optional>

namespace ktune::cli {
namespace {

nlohmann::ordered_json config_json(const config& c) {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (const auto& [n, v] : c.values())
        std::visit([&j, &n = n](const auto& x) { j[n] = x; }, v);
    return j;
}

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

void torch_json(nlohmann::ordered_json& j, const tune::tune_report& r,
                const std::optional<tune::torch_timing>& t) {
    if (!t) return;
    if (!t->ok) {
        j["torch"] = {{"error", t->message}};
        return;
    }
    j["torch"] = {{"expression", t->expression},
                  {"version", t->torch_version},
                  {"median_us", t->median_ms * 1000}};
    if (!r.winner.cfg.empty())
        j["torch"]["speedup"] = t->median_ms * 1000 / r.winner.time.median_us;
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

int print_json(const tune::tune_report& r, const tune::tune_request& rq,
               const std::optional<tune::torch_timing>& torch) {
    nlohmann::ordered_json j{{"schema", "ktune.tune_op"},
                             {"version", "1.1.0"},
                             {"op", rq.op},
                             {"shape", ops::to_string(rq.prob.shape)},
                             {"dtype", ops::to_string(rq.prob.type)},
                             {"cache_hit", r.cache_hit},
                             {"key", r.winner.key.to_string()}};
    if (!r.winner.cfg.empty()) {
        j["winner"] = {{"config", config_json(r.winner.cfg)},
                       {"median_us", r.winner.time.median_us},
                       {"ci_low_us", r.winner.time.ci_low_us},
                       {"ci_high_us", r.winner.time.ci_high_us},
                       {"samples", r.winner.time.samples}};
    }
    torch_json(j, r, torch);
    if (!r.cache_hit) {
        j["strategy"] = r.strategy;
        j["tied"] = r.tied;
        j["bytes"] = r.bytes;
        j["copy_gbs"] = r.copy_gbs;
        if (r.baseline.status == tune::eval_status::ok)
            j["default"] = {{"config", config_json(r.baseline.cfg)},
                            {"median_us", r.baseline.run.median_ms * 1000}};
        j["wall_s"] = r.wall_s;
        j["gpu_busy_s"] = r.gpu_busy_s;
        j["compile_cpu_s"] = r.compile_s;
        j["compile_wait_s"] = r.compile_wait_s;
        j["setup_s"] = r.setup_s;
        j["confirm_s"] = r.confirm_s;
        j["workers_spawned"] = r.workers_spawned;
        j["worker_setup_s"] = r.worker_setup_s;
        j["compile_servers"] = r.compile_servers;
        j["compile_server_failures"] = r.compile_server_failures;
        j["copy_gbs_cached"] = r.copy_gbs_cached;
        auto& cs = j["candidates"] = nlohmann::ordered_json::array();
        for (const auto& c : r.candidates)
            cs.push_back({{"config", config_json(c.cfg)},
                          {"status", tune::to_string(c.status)},
                          {"median_us", c.run.median_ms * 1000},
                          {"ci_low_us", c.run.ci_lo_ms * 1000},
                          {"ci_high_us", c.run.ci_hi_ms * 1000},
                          {"samples", c.run.samples_ms.size()},
                          {"registers", c.run.registers},
                          {"compile_ms", c.compile_ms},
                          {"message", c.message.substr(0, 300)}});
    }
    fmt::print("{}\n", j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
    return r.winner.cfg.empty() ? finding : ok;
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
    fmt::print("  {:.0f} GB/s = {:.1f} % of measured copy bandwidth ({:.0f} GB/s)", gbs,
               100 * gbs / r.copy_gbs, r.copy_gbs);
    if (auto p = find_gpu_peaks(w.origin.gpu_name))
        fmt::print(", {:.1f} % of spec DRAM peak", 100 * gbs / p->dram_gbs);
    fmt::print("\n");
    if (r.baseline.status == tune::eval_status::ok)
        fmt::print("  default config {:.4f} ms: speed-up {:.2f}x\n", r.baseline.run.median_ms,
                   r.baseline.run.median_ms / med_ms);
    else
        fmt::print("  default config failed: {}\n", tune::to_string(r.baseline.status));
    fmt::print("  {} candidates ({}), strategy {}\n", r.candidates.size(), cs, r.strategy);
    fmt::print("  {:.2f} s wall (set-up {:.2f} s, confirmation {:.2f} s), GPU busy {:.2f} s "
               "({:.0f} %), compile {:.1f} CPU-s in {}, {} worker process{}\n",
               r.wall_s, r.setup_s, r.confirm_s, r.gpu_busy_s, 100 * r.gpu_busy_s / r.wall_s,
               r.compile_s,
               r.compile_servers ? fmt::format("{} compile servers", r.compile_servers)
                                 : std::string("threads"),
               r.workers_spawned, r.workers_spawned == 1 ? "" : "es");
    fmt::print("cached: {}\n", w.key.to_string());
}

} // namespace

int run_tune_op(const tune_op_options& o) {
    tune::tune_request rq;
    rq.op = o.op;
    rq.prob = {ops::parse_shape(o.shape), ops::parse_dtype(o.dtype)};
    rq.strategy = o.strategy;
    rq.budget = static_cast<std::size_t>(o.budget > 0 ? o.budget : 0);
    rq.seed = o.seed;
    rq.cache_file = o.cache;
    (void)ops::find_op(o.op); // an unknown op is a usage error before any GPU work
    if (!o.json)
        fmt::print(stderr, "ktune tune {} {} {}: strategy {}\n", o.op, o.shape, o.dtype,
                   o.strategy);
    const bool show = !o.json && stderr_is_tty();
    const auto report =
        tune::tune_op(rq, show ? tune::tune_progress(print_progress) : tune::tune_progress{});
    // After the tune: the worker has stopped using the GPU.
    std::optional<tune::torch_timing> torch;
    if (o.vs_torch) torch = tune::time_torch_equivalent(rq);
    if (o.json) return print_json(report, rq, torch);
    print_text(report);
    torch_text(report, torch);
    return report.winner.cfg.empty() ? finding : ok;
}

} // namespace ktune::cli
