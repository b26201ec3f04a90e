// Several tunes in one process (tuner_plan.hpp): the plan file, the command line's product of
// ops x shapes x dtypes, up-front validation, and the run on one tune_session.
#include "ktune/tune/tuner_plan.hpp"
#include "core/line_column.hpp"
#include "ktune/cache/shared_tier.hpp"

#include "ktune/core/error.hpp"
#include "ktune/ops/op.hpp"
#include "ktune/tune/searcher.hpp"
#include "tune/tuner_eval.hpp"
#include "tune/tuner_schedule.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>

namespace ktune::tune {
namespace {

using json = nlohmann::json;

[[noreturn]] void bad(const std::string& source, const std::string& path, const std::string& what) {
    throw error(error_kind::input,
                fmt::format("{}: {}: {}", source, path.empty() ? "/" : path, what));
}

json parse(std::string_view text, const std::string& source) {
    try {
        return json::parse(text);
    } catch (const json::parse_error& e) {
        // nlohmann's byte counts from 1: the byte before it is the offending one.
        throw error(error_kind::input,
                    fmt::format("{}:{}: not valid JSON ({})", source,
                                ktune::detail::line_column(text, e.byte ? e.byte - 1 : 0),
                                e.what()));
    } catch (const json::exception& e) { // a number beyond double: 1e999
        throw error(error_kind::input, fmt::format("{}: not usable JSON ({})", source, e.what()));
    }
}

std::string text_field(const json& o, const char* name, const std::string& source,
                       const std::string& path, bool required) {
    const auto it = o.find(name);
    if (it == o.end()) {
        if (required)
            bad(source, path,
                fmt::format("'{}' is missing (each tune needs \"op\" and \"shape\")", name));
        return {};
    }
    if (!it->is_string()) bad(source, path + "/" + name, "must be a string");
    auto text = it->get<std::string>();
    // An empty op or shape would only fail later, far from the plan line that caused it.
    if (required && text.empty()) bad(source, path + "/" + name, "must not be empty");
    return text;
}

plan_entry entry_from(const json& o, const std::string& source, const std::string& path) {
    if (!o.is_object())
        bad(source, path,
            "a tune is an object such as {\"op\": \"softmax\", \"shape\": "
            "\"8192x8192\", \"dtype\": \"bf16\"}");
    for (const auto& [k, v] : o.items())
        if (k != "op" && k != "shape" && k != "dtype" && k != "budget" && k != "strategy")
            bad(source, path + "/" + k,
                "unknown key (a tune has op, shape, dtype, budget and strategy)");
    plan_entry e;
    e.op = text_field(o, "op", source, path, true);
    e.shape = text_field(o, "shape", source, path, true);
    e.dtype = text_field(o, "dtype", source, path, false);
    if (e.dtype.empty()) e.dtype = "fp32";
    e.strategy = text_field(o, "strategy", source, path, false);
    if (const auto it = o.find("budget"); it != o.end()) {
        if (!it->is_number_unsigned() || it->get<std::uint64_t>() == 0)
            bad(source, path + "/budget", "must be a positive integer (evaluated configs)");
        e.budget = it->get<std::size_t>();
    }
    e.where = fmt::format("{}: {}", source, path);
    return e;
}

} // namespace

std::vector<plan_entry> parse_tune_plan(std::string_view text, const std::string& source) {
    const json j = parse(text, source);
    const json* tunes = &j;
    std::string base;
    if (j.is_object()) {
        if (const auto s = j.find("schema"); s != j.end() && *s != "ktune.tune_plan")
            bad(source, "/schema", "expected \"ktune.tune_plan\"");
        if (const auto v = j.find("version"); v != j.end()) {
            if (!v->is_string() || v->get<std::string>().rfind("1.", 0) != 0)
                bad(source, "/version",
                    "this ktune reads plan version 1.x; write \"version\": \"1.0.0\"");
        }
        const auto t = j.find("tunes");
        if (t == j.end()) bad(source, "", "no \"tunes\" array");
        tunes = &*t;
        base = "/tunes";
    }
    if (!tunes->is_array())
        bad(source, base, "expected an array of tunes ({\"op\": …, \"shape\": …, \"dtype\": …})");
    if (tunes->empty()) bad(source, base, "the plan has no tunes");
    std::vector<plan_entry> out;
    for (std::size_t i = 0; i < tunes->size(); ++i)
        out.push_back(entry_from((*tunes)[i], source, fmt::format("{}/{}", base, i)));
    return out;
}

std::vector<plan_entry> load_tune_plan(const std::filesystem::path& file) {
    std::ifstream f(file, std::ios::binary);
    if (!f)
        throw error(error_kind::io, fmt::format("{}: cannot open the tune plan", file.string()));
    std::ostringstream ss;
    ss << f.rdbuf();
    return parse_tune_plan(ss.str(), file.string());
}

std::vector<plan_entry> plan_product(const std::vector<std::string>& ops,
                                     const std::vector<std::string>& shapes,
                                     const std::vector<std::string>& dtypes) {
    std::vector<plan_entry> out;
    for (const auto& o : ops)
        for (const auto& s : shapes)
            for (const auto& d : dtypes) {
                plan_entry e;
                e.op = o;
                e.shape = s;
                e.dtype = d;
                e.where = fmt::format("{} --shape {} --dtype {}", o, s, d);
                out.push_back(std::move(e));
            }
    return out;
}

std::vector<tune_request> plan_requests(const std::vector<plan_entry>& plan,
                                        const tune_request& base) {
    if (!base.shared_cache.empty()) { // its URL and this build's Redis support, before any tune
        cache::shared_tier_options so;
        so.url = base.shared_cache;
        cache::shared_tier check(so);
    }
    std::vector<tune_request> out;
    for (const auto& e : plan) {
        tune_request rq = base;
        rq.op = e.op;
        if (!e.strategy.empty()) rq.strategy = e.strategy;
        if (e.budget) rq.budget = e.budget;
        // Every mistake is reported before the first tune starts a GPU context.
        try {
            (void)ops::find_op(rq.op);
            rq.prob = {ops::parse_shape(e.shape), ops::parse_dtype(e.dtype)};
            (void)make_searcher(rq.strategy);
        } catch (const error& err) {
            throw error(err.kind(), fmt::format("{}: {}", e.where, err.what()));
        }
        out.push_back(std::move(rq));
    }
    return out;
}

namespace {
std::vector<plan_outcome> run_plan_on_gpus(const std::vector<tune_request>& requests,
                                           const plan_start& on_start,
                                           const tune_progress& progress) {
    const std::vector<int> gpus = requests.front().gpus;
    std::shared_ptr<compile::compile_pool> pool; // at the first miss, shared by every GPU
    std::vector<std::unique_ptr<detail::runtime>> runtimes(gpus.size());
    std::mutex mu; // the callbacks, the pool's creation
    const auto run = [&](std::size_t slot, std::size_t i) {
        tune_request rq = requests[i];
        rq.gpus = {gpus[slot]};
        plan_outcome o;
        auto hit = cached_tune(rq);
        {
            std::lock_guard lock(mu);
            if (on_start) on_start(i, rq, hit.has_value());
        }
        if (hit) {
            o.report = std::move(*hit);
        } else {
            if (!runtimes[slot]) {
                {
                    std::lock_guard lock(mu);
                    if (!pool) pool = detail::make_compile_pool(rq);
                }
                runtimes[slot] = std::make_unique<detail::runtime>(rq, pool);
                runtimes[slot]->lose_gpu_on_kill = true;
            }
            const tune_progress locked = [&](const tune_report& r, std::size_t d, std::size_t b) {
                std::lock_guard lock(mu);
                progress(r, d, b);
            };
            try {
                o.report =
                    detail::tune_on(rq, progress ? locked : tune_progress{}, runtimes[slot].get());
            } catch (const error& e) {
                if (detail::loses_gpu(e)) runtimes[slot].reset(); // its worker goes now
                throw;
            }
        }
        o.ok = true;
        return o;
    };
    auto out = detail::run_on_slots(requests.size(), gpus.size(), run);
    for (auto& o : out)
        if (o.gpu >= 0) o.gpu = gpus[static_cast<std::size_t>(o.gpu)];
    return out;
}
} // namespace

std::vector<plan_outcome> run_plan(const std::vector<tune_request>& requests,
                                   const plan_start& on_start, const tune_progress& progress) {
    if (!requests.empty() && requests.front().gpus.size() > 1)
        return run_plan_on_gpus(requests, on_start, progress);
    std::vector<plan_outcome> out;
    std::unique_ptr<tune_session> session; // at the first miss: a plan of hits needs no GPU
    for (std::size_t i = 0; i < requests.size(); ++i) {
        const tune_request& rq = requests[i];
        plan_outcome o;
        try {
            auto hit = cached_tune(rq);
            if (on_start) on_start(i, rq, hit.has_value());
            if (hit) {
                o.report = std::move(*hit);
            } else {
                if (!session) session = std::make_unique<tune_session>(rq);
                o.report = session->tune(rq, progress);
            }
            o.ok = true;
        } catch (const error& e) {
            if (e.kind() == error_kind::no_device) throw;
            o.error = fmt::format("{} error: {}", to_string(e.kind()), e.what());
        } catch (const std::exception& e) {
            o.error = fmt::format("internal error: {}", e.what());
        }
        o.gpu = rq.gpus.empty() ? -1 : rq.gpus.front();
        out.push_back(std::move(o));
    }
    return out;
}

} // namespace ktune::tune
