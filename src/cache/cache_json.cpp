#include "cache/cache_json.hpp"
#include "core/config_json.hpp"
#include "ktune/cache/store.hpp"
#include "ktune/core/error.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace ktune::cache::detail {
namespace {

using ojson = nlohmann::ordered_json;

[[noreturn]] void bad(std::string_view name, const std::string& path, std::string_view what) {
    throw error(error_kind::input,
                fmt::format("{}: {}: {}; the file is left as is: fix that entry in an editor, "
                            "restore the file from a backup, or move it away to start a new cache",
                            name, path, what));
}

struct reader {
    std::string_view name;

    const ojson& field(const ojson& obj, const char* key, const std::string& path) const {
        auto it = obj.find(key);
        if (it == obj.end()) bad(name, path, fmt::format("missing field '{}'", key));
        return *it;
    }
    std::string str(const ojson& obj, const char* key, const std::string& path,
                    bool required = true) const {
        auto it = obj.find(key);
        if (it == obj.end()) {
            if (required) bad(name, path, fmt::format("missing field '{}'", key));
            return {};
        }
        if (!it->is_string()) bad(name, path + "." + key, "expected a string");
        return it->get<std::string>();
    }
    std::int64_t integer(const ojson& j, const std::string& path, std::int64_t lo,
                         std::int64_t hi) const {
        if (j.is_number_unsigned()) {
            if (j.get<std::uint64_t>() > static_cast<std::uint64_t>(hi))
                bad(name, path, "integer out of range");
            return static_cast<std::int64_t>(j.get<std::uint64_t>());
        }
        if (!j.is_number_integer()) bad(name, path, "expected an integer");
        const auto v = j.get<std::int64_t>();
        if (v < lo || v > hi) bad(name, path, "integer out of range");
        return v;
    }
    double number(const ojson& j, const std::string& path) const {
        if (!j.is_number()) bad(name, path, "expected a number");
        const auto d = j.get<double>();
        if (!std::isfinite(d)) bad(name, path, "number out of range");
        return d;
    }

    entry read_entry(const ojson& j, const std::string& path) const {
        if (!j.is_object()) bad(name, path, "an entry must be a JSON object");
        constexpr auto imax = std::numeric_limits<int>::max();
        constexpr auto i64max = std::numeric_limits<std::int64_t>::max();
        entry e;
        e.key.op = str(j, "op", path);
        e.key.op_version = str(j, "op_version", path);
        e.key.dtype = str(j, "dtype", path);
        e.key.arch = str(j, "arch", path);
        const auto& b = field(j, "bucket", path);
        if (!b.is_array()) bad(name, path + ".bucket", "expected an array of integers");
        for (std::size_t i = 0; i < b.size(); ++i)
            e.key.bucket.push_back(integer(b[i], fmt::format("{}.bucket[{}]", path, i), 0, i64max));
        e.key.toolkit =
            static_cast<int>(integer(field(j, "toolkit", path), path + ".toolkit", 0, imax));
        e.key.driver_major = static_cast<int>(
            integer(field(j, "driver_major", path), path + ".driver_major", 0, imax));
        e.key.protocol =
            static_cast<int>(integer(field(j, "protocol", path), path + ".protocol", 0, imax));

        const auto& c = field(j, "config", path);
        if (!c.is_object()) bad(name, path + ".config", "expected an object of parameters");
        std::vector<config::entry> values;
        for (auto it = c.begin(); it != c.end(); ++it) {
            const std::string p = path + ".config." + it.key();
            const auto& v = it.value();
            if (v.is_number_unsigned())
                values.emplace_back(it.key(), integer(v, p, 0, i64max));
            else if (v.is_number_float())
                values.emplace_back(it.key(), number(v, p));
            else if (v.is_boolean() || v.is_number() || v.is_string())
                values.emplace_back(it.key(), ktune::detail::value_from_json(v, it.key()));
            else
                bad(name, p, "expected a number, bool or string");
        }
        e.cfg = config(std::move(values));

        e.time.median_us = number(field(j, "median_us", path), path + ".median_us");
        const auto& ci = field(j, "ci_us", path);
        if (!ci.is_array() || ci.size() != 2) bad(name, path + ".ci_us", "expected [low, high]");
        e.time.ci_low_us = number(ci[0], path + ".ci_us[0]");
        e.time.ci_high_us = number(ci[1], path + ".ci_us[1]");
        e.time.samples = integer(field(j, "samples", path), path + ".samples", 0, i64max);

        auto pit = j.find("provenance");
        if (pit != j.end()) {
            const auto& p = *pit;
            const std::string pp = path + ".provenance";
            if (!p.is_object()) bad(name, pp, "expected an object");
            e.origin.gpu_name = str(p, "gpu", pp, false);
            e.origin.gpu_uuid = str(p, "uuid", pp, false);
            e.origin.date = str(p, "date", pp, false);
            e.origin.ktune_version = str(p, "ktune", pp, false);
            e.origin.host = str(p, "host", pp, false);
            constexpr auto umax = std::numeric_limits<unsigned>::max();
            if (auto it = p.find("sm_mhz"); it != p.end())
                e.origin.sm_mhz = static_cast<unsigned>(integer(*it, pp + ".sm_mhz", 0, umax));
            if (auto it = p.find("memory_mhz"); it != p.end())
                e.origin.memory_mhz =
                    static_cast<unsigned>(integer(*it, pp + ".memory_mhz", 0, umax));
        }
        return e;
    }
};

} // namespace

void check_schema(std::string_view schema, std::string_view version, std::string_view name) {
    if (schema != schema_name)
        throw error(error_kind::input,
                    fmt::format("{}: schema '{}' is not a ktune cache (expected '{}')", name,
                                schema, schema_name));
    const auto dot = version.find('.');
    const auto major = version.substr(0, dot);
    if (major != schema_version.substr(0, schema_version.find('.')))
        throw error(error_kind::input,
                    fmt::format("{}: cache schema version {} is not readable by this ktune "
                                "(reads {}.x); use the ktune that wrote it, or upgrade ktune",
                                name, version, schema_version.substr(0, 1)));
}

nlohmann::ordered_json entry_to_json(const entry& e) {
    const auto& k = e.key;
    return ojson{{"op", k.op},
                 {"op_version", k.op_version},
                 {"dtype", k.dtype},
                 {"bucket", k.bucket},
                 {"arch", k.arch},
                 {"toolkit", k.toolkit},
                 {"driver_major", k.driver_major},
                 {"protocol", k.protocol},
                 {"config", ktune::detail::config_to_json(e.cfg)},
                 {"median_us", e.time.median_us},
                 {"ci_us", {e.time.ci_low_us, e.time.ci_high_us}},
                 {"samples", e.time.samples},
                 {"provenance",
                  {{"gpu", e.origin.gpu_name},
                   {"uuid", e.origin.gpu_uuid},
                   {"sm_mhz", e.origin.sm_mhz},
                   {"memory_mhz", e.origin.memory_mhz},
                   {"date", e.origin.date},
                   {"ktune", e.origin.ktune_version},
                   {"host", e.origin.host}}}};
}

std::vector<entry> parse_cache_nlohmann(std::string_view text, std::string_view name) {
    ojson doc;
    try {
        doc = ojson::parse(text.begin(), text.end());
    } catch (const nlohmann::json::parse_error& e) {
        throw error(
            error_kind::input,
            fmt::format("{}: not valid JSON at byte {} of {} ({}){}; the file is left as "
                        "is: restore it from a backup, or move it away to start a new "
                        "cache",
                        name, e.byte, text.size(),
                        std::string_view(e.what()).substr(std::string_view(e.what()).find(':') + 2),
                        e.byte >= text.size() ? ", the file looks truncated" : ""));
    } catch (const nlohmann::json::exception& e) {
        // e.g. out_of_range 406 for a number beyond double: no byte offset from nlohmann.
        throw error(error_kind::input,
                    fmt::format("{}: not valid for a cache ({}); the file is left as is: restore "
                                "it from a backup, or move it away to start a new cache",
                                name, e.what()));
    }
    const reader r{name};
    if (!doc.is_object()) bad(name, "$", "a cache file is a JSON object");
    check_schema(r.str(doc, "schema", "$"), r.str(doc, "version", "$"), name);
    const auto& arr = r.field(doc, "entries", "$");
    if (!arr.is_array()) bad(name, "$.entries", "expected an array");
    std::vector<entry> out;
    out.reserve(arr.size());
    for (std::size_t i = 0; i < arr.size(); ++i)
        out.push_back(r.read_entry(arr[i], fmt::format("$.entries[{}]", i)));
    return out;
}

} // namespace ktune::cache::detail
