// A tune's measured candidates as a replayable recorded space (tuner_json.hpp,
// recorded_space_json; the format is Kernel Tuner's cache, docs/formats.md#recorded-spaces).
#include "ktune/tune/tuner_json.hpp"

#include "tune/tune_target.hpp"

#include <nlohmann/json.hpp>

#include <ctime>

namespace ktune::tune {
namespace {
using ojson = nlohmann::ordered_json;

/// Python's str() of a value: the cache's keys are what Kernel Tuner writes.
std::string kt_value(const param_value& v) {
    if (const auto* b = std::get_if<bool>(&v)) return *b ? "True" : "False";
    return ktune::to_string(v);
}

void put(ojson& j, const param_value& v) {
    std::visit([&j](const auto& x) { j = x; }, v);
}
} // namespace

std::string recorded_space_json(const tune_report& r, const tune_request& rq) {
    const auto target = detail::make_target(rq, r.winner.key.arch);
    const space sp = target->make_space();
    const tune_labels what = target->labels();
    ojson problem = ojson::array();
    if (rq.kernel_spec.empty()) {
        problem = {rq.prob.shape.rows, rq.prob.shape.cols};
    } else {
        for (const auto& [n, v] : rq.kernel_problem.dims)
            problem.push_back(v);
    }
    ojson j{{"device_name", r.winner.origin.gpu_name},
            {"kernel_name", rq.kernel_spec.empty() ? what.op + "_" + what.dtype : what.op},
            {"problem_size", problem},
            {"tune_params_keys", ojson::array()},
            {"tune_params", ojson::object()},
            {"objective", "time"}};
    for (const auto& a : sp.axes()) {
        j["tune_params_keys"].push_back(a.name);
        ojson vals = ojson::array();
        for (const auto& v : a.values) {
            ojson x;
            put(x, v);
            vals.push_back(std::move(x));
        }
        j["tune_params"][a.name] = std::move(vals);
    }
    j["ktune"] = {
        {"what", what.to_string()},
        {"op_version", r.winner.key.op_version},
        {"key", r.winner.key.to_string()},
        {"copy_gbs", r.copy_gbs},
        {"bytes", r.bytes},
        {"strategy", r.strategy},
        {"protocol", "L2 flushed before each launch; event-timed; median of >= 16 samples"}};
    std::time_t now = std::time(nullptr);
    char date[32];
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    ojson cache = ojson::object();
    for (const auto& c : r.candidates) {
        std::string key;
        ojson e = ojson::object();
        for (const auto& a : sp.axes()) {
            const param_value* v = c.cfg.find(a.name);
            if (!v) continue;
            key += (key.empty() ? "" : ",") + kt_value(*v);
            put(e[a.name], *v);
        }
        if (c.status == eval_status::ok) {
            e["time"] = c.run.median_ms;
            e["times"] = c.run.samples_ms;
        } else {
            e["time"] = c.status == eval_status::compile_error ? "CompilationFailedConfig"
                                                               : "RuntimeFailedConfig";
            e["ktune_status"] = to_string(c.status);
        }
        e["compile_time"] = c.compile_ms;
        e["benchmark_time"] = c.run.worker_ms;
        e["registers"] = c.run.registers;
        e["sm_mhz"] = c.run.clocks.sm_mhz;
        e["timestamp"] = date;
        cache[key] = std::move(e); // a config measured twice (the default rejoining): the last
    }
    j["cache"] = std::move(cache);
    return j.dump(1) + "\n";
}

} // namespace ktune::tune
