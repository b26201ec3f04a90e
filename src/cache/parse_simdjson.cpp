// The fast cache reader (simdjson DOM: validates all of the JSON, then a walk builds entries).
// Error messages match the nlohmann reader; paths are built only when something is wrong.
#include "cache/cache_json.hpp"

#if KTUNE_WITH_SIMDJSON
#include "ktune/core/error.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <cmath>
#include <limits>

namespace ktune::cache::detail {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

[[noreturn]] void bad(std::string_view name, const std::string& path, std::string_view what) {
    throw error(error_kind::input,
                fmt::format("{}: {}: {}; fix or remove that entry (`ktune cache rm`), or restore "
                            "the file from a backup",
                            name, path, what));
}

struct reader {
    std::string_view name;
    std::size_t index = 0; // entry being read, for error paths

    [[nodiscard]] std::string at(std::string_view field) const {
        return fmt::format("$.entries[{}]{}{}", index, field.empty() ? "" : ".", field);
    }
    element field(object obj, std::string_view key, std::string_view prefix = {}) const {
        element v;
        if (obj[key].get(v) != simdjson::SUCCESS)
            bad(name, at(prefix), fmt::format("missing field '{}'", key));
        return v;
    }
    std::string str(object obj, std::string_view key, std::string_view prefix = {},
                    bool required = true) const {
        element v;
        if (obj[key].get(v) != simdjson::SUCCESS) {
            if (required) bad(name, at(prefix), fmt::format("missing field '{}'", key));
            return {};
        }
        std::string_view s;
        if (v.get(s) != simdjson::SUCCESS)
            bad(name, at(prefix.empty() ? std::string(key) : fmt::format("{}.{}", prefix, key)),
                "expected a string");
        return std::string(s);
    }
    std::int64_t integer(element v, std::int64_t lo, std::int64_t hi,
                         const std::string& path_if_bad) const {
        switch (v.type()) {
        case element_type::INT64: {
            const std::int64_t x = v.get_int64().value_unsafe();
            if (x < lo || x > hi) bad(name, path_if_bad, "integer out of range");
            return x;
        }
        case element_type::UINT64: {
            const std::uint64_t x = v.get_uint64().value_unsafe();
            if (x > static_cast<std::uint64_t>(hi)) bad(name, path_if_bad, "integer out of range");
            return static_cast<std::int64_t>(x);
        }
        default:
            bad(name, path_if_bad, "expected an integer");
        }
    }
    // Paths are only formatted on failure, which keeps the loading loop allocation-light.
    std::int64_t integer_field(object obj, std::string_view key, std::int64_t lo, std::int64_t hi,
                               std::string_view prefix = {}) const {
        const element v = field(obj, key, prefix);
        const auto t = v.type();
        if (t == element_type::INT64) {
            const std::int64_t x = v.get_int64().value_unsafe();
            if (x >= lo && x <= hi) return x;
        }
        return integer(v, lo, hi,
                       at(prefix.empty() ? std::string(key) : fmt::format("{}.{}", prefix, key)));
    }
    double number(element v, std::string_view field_path) const {
        double d = 0;
        if (v.get(d) != simdjson::SUCCESS) bad(name, at(field_path), "expected a number");
        if (!std::isfinite(d)) bad(name, at(field_path), "number out of range");
        return d;
    }

    entry read_entry(element j) const {
        object o;
        if (j.get(o) != simdjson::SUCCESS) bad(name, at(""), "an entry must be a JSON object");
        constexpr auto imax = std::numeric_limits<int>::max();
        constexpr auto i64max = std::numeric_limits<std::int64_t>::max();
        entry e;
        e.key.op = str(o, "op");
        e.key.op_version = str(o, "op_version");
        e.key.dtype = str(o, "dtype");
        e.key.arch = str(o, "arch");
        simdjson::dom::array b;
        if (field(o, "bucket").get(b) != simdjson::SUCCESS)
            bad(name, at("bucket"), "expected an array of integers");
        e.key.bucket.reserve(b.size());
        std::size_t i = 0;
        for (element d : b) {
            e.key.bucket.push_back(integer(d, 0, i64max, at(fmt::format("bucket[{}]", i))));
            ++i;
        }
        e.key.toolkit = static_cast<int>(integer_field(o, "toolkit", 0, imax));
        e.key.driver_major = static_cast<int>(integer_field(o, "driver_major", 0, imax));
        e.key.protocol = static_cast<int>(integer_field(o, "protocol", 0, imax));

        object c;
        if (field(o, "config").get(c) != simdjson::SUCCESS)
            bad(name, at("config"), "expected an object of parameters");
        std::vector<config::entry> values;
        values.reserve(c.size());
        for (auto [k, v] : c) {
            std::string pname(k);
            for (const auto& prev : values)
                if (prev.first == pname) bad(name, at("config." + pname), "parameter given twice");
            switch (v.type()) {
            case element_type::INT64:
            case element_type::UINT64:
                values.emplace_back(std::move(pname),
                                    integer(v, std::numeric_limits<std::int64_t>::min(), i64max,
                                            at("config." + std::string(k))));
                break;
            case element_type::DOUBLE:
                values.emplace_back(std::move(pname), number(v, "config." + std::string(k)));
                break;
            case element_type::BOOL:
                values.emplace_back(std::move(pname), v.get_bool().value_unsafe());
                break;
            case element_type::STRING:
                values.emplace_back(std::move(pname), std::string(v.get_string().value_unsafe()));
                break;
            default:
                bad(name, at("config." + pname), "expected a number, bool or string");
            }
        }
        e.cfg = config(std::move(values));

        e.time.median_us = number(field(o, "median_us"), "median_us");
        simdjson::dom::array ci;
        if (field(o, "ci_us").get(ci) != simdjson::SUCCESS || ci.size() != 2)
            bad(name, at("ci_us"), "expected [low, high]");
        e.time.ci_low_us = number(ci.at(0).value_unsafe(), "ci_us[0]");
        e.time.ci_high_us = number(ci.at(1).value_unsafe(), "ci_us[1]");
        e.time.samples = integer_field(o, "samples", 0, i64max);

        element pv;
        if (o["provenance"].get(pv) == simdjson::SUCCESS) {
            object p;
            if (pv.get(p) != simdjson::SUCCESS) bad(name, at("provenance"), "expected an object");
            e.origin.gpu_name = str(p, "gpu", "provenance", false);
            e.origin.gpu_uuid = str(p, "uuid", "provenance", false);
            e.origin.date = str(p, "date", "provenance", false);
            e.origin.ktune_version = str(p, "ktune", "provenance", false);
            e.origin.host = str(p, "host", "provenance", false);
            constexpr auto umax = std::numeric_limits<unsigned>::max();
            element x;
            if (p["sm_mhz"].get(x) == simdjson::SUCCESS)
                e.origin.sm_mhz =
                    static_cast<unsigned>(integer(x, 0, umax, at("provenance.sm_mhz")));
            if (p["memory_mhz"].get(x) == simdjson::SUCCESS)
                e.origin.memory_mhz =
                    static_cast<unsigned>(integer(x, 0, umax, at("provenance.memory_mhz")));
        }
        return e;
    }
};

} // namespace

bool have_simdjson() noexcept {
    return true;
}

std::optional<std::vector<entry>> parse_cache_simdjson(std::string_view text,
                                                       std::string_view name) {
    simdjson::dom::parser parser;
    const simdjson::padded_string padded(text);
    element doc;
    if (parser.parse(padded).get(doc) != simdjson::SUCCESS) return std::nullopt;
    object root;
    if (doc.get(root) != simdjson::SUCCESS) bad(name, "$", "a cache file is a JSON object");
    const auto top_str = [&](std::string_view key) {
        element v;
        std::string_view s;
        if (root[key].get(v) != simdjson::SUCCESS)
            bad(name, "$", fmt::format("missing field '{}'", key));
        if (v.get(s) != simdjson::SUCCESS) bad(name, fmt::format("$.{}", key), "expected a string");
        return s;
    };
    check_schema(top_str("schema"), top_str("version"), name);
    element ev;
    simdjson::dom::array arr;
    if (root["entries"].get(ev) != simdjson::SUCCESS) bad(name, "$", "missing field 'entries'");
    if (ev.get(arr) != simdjson::SUCCESS) bad(name, "$.entries", "expected an array");
    std::vector<entry> out;
    out.reserve(arr.size());
    reader r{name};
    for (element e : arr) {
        out.push_back(r.read_entry(e));
        ++r.index;
    }
    return out;
}

} // namespace ktune::cache::detail

#else

namespace ktune::cache::detail {
bool have_simdjson() noexcept {
    return false;
}
std::optional<std::vector<entry>> parse_cache_simdjson(std::string_view, std::string_view) {
    return std::nullopt;
}
} // namespace ktune::cache::detail

#endif
