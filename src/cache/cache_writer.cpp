// The cache document writer: fmt straight into one string (a store rewrites the whole file under
// the lock, so this is on the concurrent writers' critical path). Doubles print in their
// shortest round-trip form and always carry a '.' or an exponent so they read back as doubles.
#include "cache/cache_json.hpp"
#include "ktune/cache/store.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

namespace ktune::cache::detail {
namespace {

void put_string(std::string& out, std::string_view s) {
    out += '"';
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += ch;
        } else if (c < 0x20) {
            fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
        } else {
            out += ch;
        }
    }
    out += '"';
}

void put_double(std::string& out, double d) {
    const auto start = out.size();
    fmt::format_to(std::back_inserter(out), "{}", d);
    if (out.find_first_of(".eEn", start) == std::string::npos) out += ".0"; // "12" → "12.0"
}

void put_value(std::string& out, const param_value& v) {
    if (const auto* i = std::get_if<std::int64_t>(&v))
        fmt::format_to(std::back_inserter(out), "{}", *i);
    else if (const auto* d = std::get_if<double>(&v))
        put_double(out, *d);
    else if (const auto* b = std::get_if<bool>(&v))
        out += *b ? "true" : "false";
    else
        put_string(out, std::get<std::string>(v));
}

} // namespace

void append_entry_json(std::string& out, const entry& e) {
    const auto& k = e.key;
    out += "{\"op\":";
    put_string(out, k.op);
    out += ",\"op_version\":";
    put_string(out, k.op_version);
    out += ",\"dtype\":";
    put_string(out, k.dtype);
    fmt::format_to(std::back_inserter(out), ",\"bucket\":[{}],\"arch\":", fmt::join(k.bucket, ","));
    put_string(out, k.arch);
    fmt::format_to(std::back_inserter(out), ",\"toolkit\":{},\"driver_major\":{},\"protocol\":{}",
                   k.toolkit, k.driver_major, k.protocol);
    out += ",\"config\":{";
    bool first = true;
    for (const auto& [n, v] : e.cfg.values()) {
        if (!first) out += ',';
        first = false;
        put_string(out, n);
        out += ':';
        put_value(out, v);
    }
    out += "},\"median_us\":";
    put_double(out, e.time.median_us);
    out += ",\"ci_us\":[";
    put_double(out, e.time.ci_low_us);
    out += ',';
    put_double(out, e.time.ci_high_us);
    fmt::format_to(std::back_inserter(out),
                   "],\"samples\":{},\"provenance\":{{\"gpu\":", e.time.samples);
    const auto& p = e.origin;
    put_string(out, p.gpu_name);
    out += ",\"uuid\":";
    put_string(out, p.gpu_uuid);
    fmt::format_to(std::back_inserter(out), ",\"sm_mhz\":{},\"memory_mhz\":{},\"date\":", p.sm_mhz,
                   p.memory_mhz);
    put_string(out, p.date);
    out += ",\"ktune\":";
    put_string(out, p.ktune_version);
    out += ",\"host\":";
    put_string(out, p.host);
    out += "}}";
}

} // namespace ktune::cache::detail

namespace ktune::cache {

std::string format_cache(std::span<const entry> entries) {
    std::vector<const entry*> order;
    order.reserve(entries.size());
    for (const auto& e : entries)
        order.push_back(&e);
    std::stable_sort(order.begin(), order.end(),
                     [](const entry* a, const entry* b) { return key_less(a->key, b->key); });
    std::string out = fmt::format("{{\n\"schema\": \"{}\",\n\"version\": \"{}\",\n\"entries\": [",
                                  schema_name, schema_version);
    out.reserve(out.size() + entries.size() * 400);
    for (std::size_t i = 0; i < order.size(); ++i) {
        out += i ? ",\n" : "\n";
        detail::append_entry_json(out, *order[i]);
    }
    out += order.empty() ? "]\n}\n" : "\n]\n}\n";
    return out;
}

} // namespace ktune::cache
