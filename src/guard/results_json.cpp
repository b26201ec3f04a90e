// JSON form of bench results (schema ktune.results), with errors that name the JSON path.
#include "guard/json_read.hpp"
#include "ktune/core/error.hpp"
#include "ktune/guard/results.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

namespace ktune::guard {
namespace {

using nlohmann::ordered_json;

ordered_json env_to_json(const environment& e) {
    return {{"host", e.host},
            {"gpu", e.gpu},
            {"gpu_uuid", e.gpu_uuid},
            {"arch", e.arch},
            {"driver", e.driver},
            {"runtime", e.runtime},
            {"toolkit", e.toolkit},
            {"sm_clock_mhz", e.sm_clock_mhz},
            {"memory_clock_mhz", e.memory_clock_mhz},
            {"throttle_reasons", e.throttle_reasons}};
}

environment env_from_json(const detail::json_at& j) {
    environment e;
    e.host = j.opt_string("host");
    e.gpu = j.opt_string("gpu");
    e.gpu_uuid = j.opt_string("gpu_uuid");
    e.arch = j.opt_string("arch");
    e.driver = j.opt_string("driver");
    e.runtime = j.opt_string("runtime");
    e.toolkit = j.opt_string("toolkit");
    e.sm_clock_mhz = static_cast<unsigned>(j.opt_uint("sm_clock_mhz", 0));
    e.memory_clock_mhz = static_cast<unsigned>(j.opt_uint("memory_clock_mhz", 0));
    e.throttle_reasons = j.opt_uint("throttle_reasons", 0);
    return e;
}

} // namespace

std::string sample_problem(const std::vector<double>& samples) {
    bool all_zero = !samples.empty();
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const double v = samples[i];
        if (!std::isfinite(v)) return "sample " + std::to_string(i) + " is not a finite number";
        if (v < 0)
            return "sample " + std::to_string(i) + " is negative (" + std::to_string(v) + ")";
        all_zero = all_zero && v == 0;
    }
    return all_zero ? "every sample is 0: nothing was measured" : "";
}

results parse_results(const std::string& text, const std::string& source) {
    const nlohmann::json doc = detail::parse_json(text, source);
    const detail::json_at root{doc, source, ""};
    detail::check_schema(root, results_schema, 1);
    results r;
    r.suite = root.opt_string("suite");
    r.created = root.opt_string("created");
    r.ktune_version = root.opt_string("ktune_version");
    if (root.has("environment")) r.env = env_from_json(root.object("environment"));
    const auto entries = root.array("entries");
    std::map<std::string, std::size_t> first_at; // key → entry index: a key appears once
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const auto e = entries.at(i);
        result_entry out;
        out.data.name = e.string("name");
        out.data.shape = e.opt_string("shape");
        out.data.unit = e.opt_string("unit", "ns");
        out.data.launches_per_run = e.opt_number("launches_per_run", 0);
        out.data.gpu_time_share = e.opt_number("gpu_time_share", 0);
        out.data.runs = static_cast<std::size_t>(e.opt_uint("runs", 1));
        out.kind = e.opt_string("kind", "command");
        out.status = e.opt_string("status", "ok");
        out.detail = e.opt_string("detail");
        out.config = e.opt_string("config");
        out.config_source = e.opt_string("config_source");
        if (e.has("clocks")) {
            const auto c = e.object("clocks");
            out.sm_clock_mhz = static_cast<unsigned>(c.opt_uint("sm_mhz", 0));
            out.memory_clock_mhz = static_cast<unsigned>(c.opt_uint("memory_mhz", 0));
            out.throttle_reasons = c.opt_uint("throttle_reasons", 0);
        }
        if (out.status != "ok" && out.status != "unavailable" && out.status != "failed")
            e.fail("status", "must be ok, unavailable or failed");
        out.data.samples = e.has("samples") ? e.array("samples").numbers() : std::vector<double>{};
        if (out.status == "ok" && out.data.samples.empty())
            e.fail("samples", "an entry with status ok needs at least one sample");
        if (const auto why = sample_problem(out.data.samples); !why.empty())
            e.fail("samples", "key '" + out.data.key() + "': " + why);
        const auto [it, fresh] = first_at.try_emplace(out.data.key(), i);
        if (!fresh)
            e.fail("", "key '" + out.data.key() + "' is also entries[" +
                           std::to_string(it->second) +
                           "]: each key may appear once in a results file");
        r.entries.push_back(std::move(out));
    }
    if (root.has("stale_winners")) {
        const auto stale = root.array("stale_winners");
        for (std::size_t i = 0; i < stale.size(); ++i) {
            const auto s = stale.at(i);
            r.stale_winners.push_back({s.string("key"), s.opt_string("winner"),
                                       s.opt_string("better"), s.opt_number("rel_gain", 0)});
        }
    }
    return r;
}

std::string results_to_json(const results& r) {
    ordered_json j{{"schema", results_schema},
                   {"version", results_version},
                   {"suite", r.suite},
                   {"created", r.created},
                   {"ktune_version", r.ktune_version},
                   {"environment", env_to_json(r.env)},
                   {"entries", ordered_json::array()}};
    for (const auto& e : r.entries) {
        ordered_json ej{
            {"name", e.data.name}, {"shape", e.data.shape}, {"kind", e.kind}, {"status", e.status}};
        if (!e.detail.empty()) ej["detail"] = e.detail;
        if (!e.config.empty()) ej["config"] = e.config;
        if (!e.config_source.empty()) ej["config_source"] = e.config_source;
        if (e.sm_clock_mhz > 0 || e.memory_clock_mhz > 0 || e.throttle_reasons != 0)
            ej["clocks"] = {{"sm_mhz", e.sm_clock_mhz},
                            {"memory_mhz", e.memory_clock_mhz},
                            {"throttle_reasons", e.throttle_reasons}};
        ej["unit"] = e.data.unit;
        ej["runs"] = e.data.runs;
        if (e.data.launches_per_run > 0) ej["launches_per_run"] = e.data.launches_per_run;
        if (e.data.gpu_time_share > 0) ej["gpu_time_share"] = e.data.gpu_time_share;
        ej["samples"] = e.data.samples;
        j["entries"].push_back(std::move(ej));
    }
    if (!r.stale_winners.empty()) {
        j["stale_winners"] = ordered_json::array();
        for (const auto& s : r.stale_winners)
            j["stale_winners"].push_back({{"key", s.key},
                                          {"winner", s.winner},
                                          {"better", s.better},
                                          {"rel_gain", s.rel_gain}});
    }
    return j.dump(2) + "\n";
}

results read_results(const std::string& path) {
    return parse_results(detail::read_text_file(path), path);
}

void write_results(const results& r, const std::string& path) {
    detail::write_text_file_atomic(path, results_to_json(r));
}

series_set to_series_set(const results& r, const std::string& source) {
    series_set s;
    s.source = source;
    s.env = r.env;
    s.every_key_expected = true;
    for (const auto& e : r.entries) {
        if (e.status == "ok")
            s.items.push_back(e.data);
        else
            s.broken.push_back({e.data.key(), e.status, e.detail});
    }
    return s;
}

} // namespace ktune::guard
