// `ktune tune --json` (tuner_json.hpp; docs/formats.md, ktune.tune_op and
// ktune.tune_plan_result).
#include "ktune/tune/tuner_json.hpp"

#include "ktune/core/error.hpp"

#include <nlohmann/json.hpp>

namespace ktune::tune {
namespace {

using ojson = nlohmann::ordered_json;

ojson config_json(const config& c) {
    ojson j = ojson::object();
    for (const auto& [n, v] : c.values())
        std::visit([&j, &n = n](const auto& x) { j[n] = x; }, v);
    return j;
}

void torch_json(ojson& j, const tune_report& r, const std::optional<torch_timing>& t) {
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

ojson per_gpu_json(const std::vector<gpu_timing>& ts) {
    ojson a = ojson::array();
    for (const auto& t : ts)
        a.push_back({{"gpu", t.gpu}, {"median_us", t.median_ms * 1000}, {"samples", t.samples}});
    return a;
}

ojson error_object(const tune_request& rq, const std::string& error) {
    // The labels of a request that failed: a spec that no longer loads still gets a row.
    tune_labels what{rq.op, ops::to_string(rq.prob.shape),
                     std::string(ops::to_string(rq.prob.type))};
    if (!rq.kernel_spec.empty())
        what = {rq.kernel_spec.string(), rq.kernel_problem.to_string(), ""};
    try {
        what = labels_of(rq);
    } catch (const ktune::error&) {
        // the row keeps what the request said
    }
    return {{"op", what.op}, {"shape", what.problem}, {"dtype", what.dtype}, {"error", error}};
}

ojson report_object(const tune_report& r, const tune_request& rq,
                    const std::optional<torch_timing>& torch) {
    const tune_labels tuned = labels_of(rq);
    ojson j{{"schema", "ktune.tune_op"},
            {"version", "1.5.0"},
            {"op", tuned.op},
            {"shape", tuned.problem},
            {"dtype", tuned.dtype}};
    if (!rq.kernel_spec.empty()) j["kernel"] = rq.kernel_spec.string();
    j["cache_hit"] = r.cache_hit;
    j["key"] = r.winner.key.to_string();
    if (!r.winner.cfg.empty()) {
        j["winner"] = {{"config", config_json(r.winner.cfg)},
                       {"median_us", r.winner.time.median_us},
                       {"ci_low_us", r.winner.time.ci_low_us},
                       {"ci_high_us", r.winner.time.ci_high_us},
                       {"samples", r.winner.time.samples}};
        if (!r.cache_hit && r.winner_index < r.candidates.size() &&
            !r.candidates[r.winner_index].per_gpu.empty())
            j["winner"]["per_gpu"] = per_gpu_json(r.candidates[r.winner_index].per_gpu);
    }
    torch_json(j, r, torch);
    if (!r.cache_hit) {
        j["strategy"] = r.strategy;
        j["pipeline"] = r.pipeline;
        j["in_flight"] = r.in_flight;
        j["gpus"] = r.gpus;
        j["tied"] = r.tied;
        j["bytes"] = r.bytes;
        j["copy_gbs"] = r.copy_gbs;
        if (r.baseline.status == eval_status::ok)
            j["default"] = {{"config", config_json(r.baseline.cfg)},
                            {"median_us", r.baseline.run.median_ms * 1000}};
        j["wall_s"] = r.wall_s;
        j["gpu_busy_s"] = r.gpu_busy_s;
        j["compile_cpu_s"] = r.compile_s;
        j["compile_wait_s"] = r.compile_wait_s;
        j["setup_s"] = r.setup_s;
        j["confirm_s"] = r.confirm_s;
        j["workers_spawned"] = r.workers_spawned;
        j["worker_kept"] = r.worker_kept;
        if (!r.keep_note.empty()) j["keep_worker_note"] = r.keep_note;
        j["worker_setup_s"] = r.worker_setup_s;
        j["compile_servers"] = r.compile_servers;
        j["compile_server_failures"] = r.compile_server_failures;
        j["copy_gbs_cached"] = r.copy_gbs_cached;
        // Where the set-up went: ms since the tune began ("worker:" marks are the worker's).
        auto& marks = j["setup_ms"] = ojson::object();
        for (const auto& [what, at_s] : r.setup_marks)
            marks[what] = 1000 * at_s;
        auto& cs = j["candidates"] = ojson::array();
        for (const auto& c : r.candidates) {
            ojson cj{{"config", config_json(c.cfg)},
                     {"status", to_string(c.status)},
                     {"gpu", c.gpu},
                     {"median_us", c.run.median_ms * 1000},
                     {"ci_low_us", c.run.ci_lo_ms * 1000},
                     {"ci_high_us", c.run.ci_hi_ms * 1000},
                     {"samples", c.run.samples_ms.size()},
                     {"registers", c.run.registers},
                     {"compile_ms", c.compile_ms},
                     {"done_s", c.done_s},
                     {"message", c.message.substr(0, 300)}};
            if (!c.per_gpu.empty()) cj["per_gpu"] = per_gpu_json(c.per_gpu);
            cs.push_back(std::move(cj));
        }
    }
    return j;
}

std::string dump(const ojson& j) {
    return j.dump(2, ' ', false, ojson::error_handler_t::replace);
}

} // namespace

std::string tune_report_json(const tune_report& r, const tune_request& rq,
                             const std::optional<torch_timing>& torch) {
    return dump(report_object(r, rq, torch));
}

std::string tune_plan_json(const std::vector<tune_request>& rqs,
                           const std::vector<plan_outcome>& outs,
                           const std::vector<std::optional<torch_timing>>& torch, double wall_s) {
    ojson j{{"schema", "ktune.tune_plan_result"},
            {"version", "1.1.0"},
            {"wall_s", wall_s},
            {"tunes", ojson::array()}};
    for (std::size_t i = 0; i < outs.size(); ++i) {
        const std::optional<torch_timing> t = i < torch.size() ? torch[i] : std::nullopt;
        ojson tj = outs[i].ok ? report_object(outs[i].report, rqs[i], t)
                              : error_object(rqs[i], outs[i].error);
        tj["ran_on_gpu"] = outs[i].gpu;
        tj["moved"] = outs[i].moved;
        j["tunes"].push_back(std::move(tj));
    }
    return dump(j);
}

} // namespace ktune::tune
