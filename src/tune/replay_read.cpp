// Readers of recorded tuning spaces: Kernel Tuner cache JSON and T4, plain or gzip.
#include "tune/replay_read.hpp"

#include "core/config_json.hpp"
#include "ktune/core/error.hpp"
#include "ktune/tune/replay.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

namespace ktune::tune {
namespace {

using ojson = nlohmann::ordered_json;

[[noreturn]] void bad(const std::string& file, const std::string& where, const std::string& what) {
    throw error(error_kind::input, fmt::format("{}: {}: {}", file, where, what));
}

// gzread reads plain files unchanged, so one path serves .json and .json.gz. What it inflates
// is capped at a multiple of the file's size (JSON compresses 5-50x): a gzip bomb is an input
// error, not all the memory of the machine.
std::string read_maybe_gzip(const std::string& path) {
    std::error_code ec;
    const auto file_size = std::filesystem::file_size(path, ec);
    const std::uint64_t cap =
        std::max<std::uint64_t>(std::uint64_t{1} << 20, (ec ? 0 : file_size) * 256);
    gzFile f = gzopen(path.c_str(), "rb");
    if (!f) throw error(error_kind::io, fmt::format("{}: cannot open", path));
    std::string out;
    char buf[1 << 16];
    for (;;) {
        const int n = gzread(f, buf, sizeof buf);
        if (n < 0) {
            int code = 0;
            std::string msg = gzerror(f, &code);
            gzclose(f);
            throw error(error_kind::input,
                        fmt::format("{}: not a readable gzip file ({})", path, msg));
        }
        if (n == 0) break;
        out.append(buf, static_cast<std::size_t>(n));
        if (out.size() > cap) {
            gzclose(f);
            throw error(error_kind::input,
                        fmt::format("{}: inflates to more than {} bytes, 256 times its size: not a "
                                    "recorded space (a damaged or hostile gzip file)",
                                    path, cap));
        }
    }
    // A gzip stream cut short ends like a clean end of file; only gzerror tells them apart.
    int code = 0;
    const std::string msg = gzerror(f, &code);
    gzclose(f);
    if (code != Z_OK)
        throw error(error_kind::input, fmt::format("{}: not a readable gzip file ({})", path, msg));
    return out;
}

// "CompilationFailedConfig" and friends are Kernel Tuner's failure markers; 1e20 and above
// (or a non-finite value) is its other way to say the config did not run.
eval_status status_of_time(const ojson& t, double& time) {
    if (t.is_number()) {
        time = t.get<double>();
        if (!std::isfinite(time) || time >= 1e20 || time <= 0) return eval_status::launch_error;
        return eval_status::ok;
    }
    const std::string s = t.is_string() ? t.get<std::string>() : std::string();
    if (s == "CompilationFailedConfig") return eval_status::compile_error;
    if (s == "RuntimeFailedConfig") return eval_status::launch_error;
    return eval_status::invalid;
}

double number_or(const ojson& o, const char* key, double fallback) {
    auto it = o.find(key);
    return it != o.end() && it->is_number() ? it->get<double>() : fallback;
}

std::vector<double> samples_of(const ojson& arr) {
    std::vector<double> v;
    if (!arr.is_array()) return v;
    for (const auto& x : arr)
        if (x.is_number()) v.push_back(x.get<double>());
    return v;
}

point point_of(const space& sp, const ojson& params, const std::string& file,
               const std::string& where) {
    if (!params.is_object()) bad(file, where, "expected an object of parameter values");
    point p(sp.axes().size());
    for (std::size_t a = 0; a < p.size(); ++a) {
        const auto& ax = sp.axes()[a];
        auto it = params.find(ax.name);
        if (it == params.end()) bad(file, where, "parameter " + ax.name + " is missing");
        param_value v;
        try {
            v = ktune::detail::value_from_json(*it, ax.name);
        } catch (const error& e) {
            bad(file, where + "/" + ax.name, e.what());
        }
        auto i = ax.index_of(v);
        if (!i)
            bad(file, where + "/" + ax.name,
                fmt::format("value {} is not in the parameter's list", ktune::to_string(v)));
        p[a] = *i;
    }
    return p;
}

void read_kernel_tuner(recorded_space& rec, const ojson& j) {
    const std::string& file = rec.source;
    const auto& tp = j.at("tune_params");
    if (!tp.is_object() || tp.empty()) bad(file, "/tune_params", "expected a non-empty object");
    std::vector<std::string> names;
    if (auto k = j.find("tune_params_keys"); k != j.end() && k->is_array())
        for (const auto& n : *k)
            names.push_back(n.get<std::string>());
    else
        for (const auto& [n, v] : tp.items())
            names.push_back(n);
    space sp;
    for (const auto& n : names) {
        auto it = tp.find(n);
        if (it == tp.end() || !it->is_array() || it->empty())
            bad(file, "/tune_params/" + n, "expected a non-empty list of values");
        std::vector<param_value> vals;
        for (const auto& v : *it)
            vals.push_back(ktune::detail::value_from_json(v, n));
        sp.add(axis::list(n, std::move(vals)));
    }
    const auto& cache = j.at("cache");
    if (!cache.is_object()) bad(file, "/cache", "expected an object of recorded configs");
    for (const auto& [key, e] : cache.items()) {
        const std::string where = "/cache/" + key;
        recorded_config rc;
        rc.where = point_of(sp, e, file, where);
        auto t = e.find("time");
        if (t == e.end()) bad(file, where, "no \"time\"");
        rc.status = status_of_time(*t, rc.time);
        if (rc.status != eval_status::ok) rc.time = 0;
        if (auto s = e.find("times"); s != e.end()) rc.samples = samples_of(*s);
        rc.compile_s = number_or(e, "compile_time", 0) / 1000;
        rc.benchmark_s =
            (number_or(e, "benchmark_time", 0) + number_or(e, "verification_time", 0)) / 1000;
        rec.configs.push_back(std::move(rc));
    }
    if (auto d = j.find("device_name"); d != j.end() && d->is_string()) rec.device = *d;
    if (auto k = j.find("kernel_name"); k != j.end() && k->is_string()) rec.kernel = *k;
    rec.format = "kernel_tuner";
    rec.space = std::move(sp);
}

void read_t4(recorded_space& rec, const ojson& j) {
    const std::string& file = rec.source;
    const std::string version =
        j.at("schema_version").is_string() ? j["schema_version"].get<std::string>() : "";
    if (version.rfind("1.", 0) != 0)
        bad(file, "/schema_version",
            fmt::format("T4 schema '{}' unsupported; this reader knows 1.x", version));
    const auto& results = j.at("results");
    if (!results.is_array() || results.empty()) bad(file, "/results", "expected a non-empty list");
    // T4 lists no parameter ranges: the axes are the values that occur, sorted.
    std::vector<std::string> names;
    std::map<std::string, std::vector<param_value>> values;
    for (std::size_t i = 0; i < results.size(); ++i) {
        auto c = results[i].find("configuration");
        if (c == results[i].end() || !c->is_object())
            bad(file, fmt::format("/results/{}", i), "no \"configuration\" object");
        for (const auto& [n, v] : c->items()) {
            if (!values.count(n)) names.push_back(n);
            auto& vs = values[n];
            auto pv = ktune::detail::value_from_json(v, n);
            if (std::find(vs.begin(), vs.end(), pv) == vs.end()) vs.push_back(pv);
        }
    }
    space sp;
    for (const auto& n : names) {
        auto& vs = values[n];
        std::sort(vs.begin(), vs.end(), [](const param_value& a, const param_value& b) {
            if (a.index() != b.index()) return a.index() < b.index();
            return a < b;
        });
        sp.add(axis::list(n, vs));
    }
    for (std::size_t i = 0; i < results.size(); ++i) {
        const auto& r = results[i];
        const std::string where = fmt::format("/results/{}", i);
        recorded_config rc;
        rc.where = point_of(sp, r["configuration"], file, where + "/configuration");
        const std::string inv = r.value("invalidity", std::string("correct"));
        double time = 0;
        bool have_time = false;
        if (auto m = r.find("measurements"); m != r.end() && m->is_array())
            for (const auto& x : *m)
                if (x.value("name", std::string()) == "time" && x.contains("value")) {
                    rc.status = status_of_time(x["value"], time);
                    have_time = true;
                }
        if (inv == "compile")
            rc.status = eval_status::compile_error;
        else if (inv == "runtime")
            rc.status = eval_status::launch_error;
        else if (inv == "constraints")
            rc.status = eval_status::invalid;
        else if (inv == "correctness")
            rc.status = eval_status::wrong_result;
        else if (inv != "correct")
            bad(file, where + "/invalidity", "unknown value '" + inv + "'");
        else if (!have_time)
            bad(file, where + "/measurements", "no \"time\" measurement");
        rc.time = rc.status == eval_status::ok ? time : 0;
        if (auto t = r.find("times"); t != r.end() && t->is_object()) {
            if (auto s = t->find("runtimes"); s != t->end()) rc.samples = samples_of(*s);
            rc.compile_s = number_or(*t, "compilation", 0) / 1000;
            double bench = 0;
            for (double s : rc.samples)
                bench += s;
            rc.benchmark_s = (bench + number_or(*t, "validation", 0)) / 1000;
        }
        rec.configs.push_back(std::move(rc));
    }
    rec.format = "t4";
    rec.space = std::move(sp);
}

} // namespace

recorded_space load_recorded_space(const std::string& path) {
    return detail::parse_recorded_space(read_maybe_gzip(path), path);
}

recorded_space detail::parse_recorded_space(std::string_view text, const std::string& path) {
    ojson j;
    try {
        j = ojson::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        throw error(error_kind::input,
                    fmt::format("{}: not JSON (byte {}): {}", path, e.byte, e.what()));
    } catch (const nlohmann::json::exception& e) { // e.g. a number beyond double: 1e999
        throw error(error_kind::input, fmt::format("{}: not usable JSON: {}", path, e.what()));
    }
    recorded_space rec;
    rec.source = path;
    try {
        if (j.is_object() && j.contains("cache") && j.contains("tune_params"))
            read_kernel_tuner(rec, j);
        else if (j.is_object() && j.contains("results") && j.contains("schema_version"))
            read_t4(rec, j);
        else
            bad(path, "/",
                "neither a Kernel Tuner cache (\"tune_params\", \"cache\") nor a T4 "
                "file (\"schema_version\", \"results\")");
    } catch (const nlohmann::json::exception& e) {
        throw error(error_kind::input, fmt::format("{}: unexpected structure: {}", path, e.what()));
    } catch (const error& e) {
        // The space and config readers (src/core, src/tune/space.cpp) do not know the file.
        if (std::string_view(e.what()).starts_with(path)) throw;
        throw error(error_kind::input, fmt::format("{}: {}", path, e.what()));
    }
    if (rec.configs.empty()) bad(path, "/", "no recorded configs");
    std::vector<point> members;
    for (const auto& c : rec.configs)
        members.push_back(c.where);
    rec.space.restrict_to(members);
    std::sort(rec.configs.begin(), rec.configs.end(), [&](const auto& a, const auto& b) {
        return rec.space.code(a.where) < rec.space.code(b.where);
    });
    for (std::size_t i = 1; i < rec.configs.size(); ++i)
        if (rec.configs[i].where == rec.configs[i - 1].where)
            bad(path, "/",
                "config " + rec.space.to_config(rec.configs[i].where).to_string() +
                    " is recorded twice");
    if (rec.ok_count() == 0) bad(path, "/", "no recorded config ran successfully");
    return rec;
}

} // namespace ktune::tune
