// The fast cache reader (simdjson DOM: validates all of the JSON, then a walk builds entries).
// Error messages match the nlohmann reader; paths are built only when something is wrong.
#include "cache/cache_json.hpp"

#if KTUNE_WITH_SIMDJSON
#include "ktune/core/error.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <thread>

namespace ktune::cache::detail {
static_assert(padding_bytes >= simdjson::SIMDJSON_PADDING);
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

// Field errors format their JSON path only when thrown: the loading loop builds no strings
// beyond the entry's own.
struct reader {
    std::string_view name;
    std::size_t index = 0; // entry being read, for error paths

    [[nodiscard]] std::string at(std::string_view field) const {
        return fmt::format("$.entries[{}]{}{}", index, field.empty() ? "" : ".", field);
    }
    [[noreturn]] void fail(std::string_view field, std::string_view what) const {
        bad(name, at(field), what);
    }
    std::string_view str(element v, std::string_view field) const {
        std::string_view s;
        if (v.get(s) != simdjson::SUCCESS) fail(field, "expected a string");
        return s;
    }
    std::int64_t integer(element v, std::int64_t lo, std::int64_t hi,
                         std::string_view field) const {
        if (v.type() == element_type::INT64) {
            const std::int64_t x = v.get_int64().value_unsafe();
            if (x < lo || x > hi) fail(field, "integer out of range");
            return x;
        }
        if (v.type() == element_type::UINT64) {
            const std::uint64_t x = v.get_uint64().value_unsafe();
            if (x > static_cast<std::uint64_t>(hi)) fail(field, "integer out of range");
            return static_cast<std::int64_t>(x);
        }
        fail(field, "expected an integer");
    }
    double number(element v, std::string_view field) const {
        double d = 0;
        if (v.get(d) != simdjson::SUCCESS) fail(field, "expected a number");
        if (!std::isfinite(d)) fail(field, "number out of range");
        return d;
    }

    config read_config(element v) const {
        object c;
        if (v.get(c) != simdjson::SUCCESS) fail("config", "expected an object of parameters");
        constexpr auto i64min = std::numeric_limits<std::int64_t>::min();
        constexpr auto i64max = std::numeric_limits<std::int64_t>::max();
        std::vector<config::entry> values;
        values.reserve(c.size());
        for (auto [k, x] : c) {
            for (const auto& prev : values)
                if (prev.first == k) fail(fmt::format("config.{}", k), "parameter given twice");
            const std::string_view key = k; // clang < 16 cannot capture a structured binding
            const auto path = [key] { return fmt::format("config.{}", key); };
            switch (x.type()) {
            case element_type::INT64:
                values.emplace_back(std::string(k), x.get_int64().value_unsafe());
                break;
            case element_type::UINT64:
                values.emplace_back(std::string(k), integer(x, i64min, i64max, path()));
                break;
            case element_type::DOUBLE: {
                const double d = x.get_double().value_unsafe();
                if (!std::isfinite(d)) fail(path(), "number out of range");
                values.emplace_back(std::string(k), d);
                break;
            }
            case element_type::BOOL:
                values.emplace_back(std::string(k), x.get_bool().value_unsafe());
                break;
            case element_type::STRING:
                values.emplace_back(std::string(k), std::string(x.get_string().value_unsafe()));
                break;
            default:
                fail(path(), "expected a number, bool or string");
            }
        }
        return config(std::move(values));
    }

    void read_provenance(element v, provenance& p) const {
        object o;
        if (v.get(o) != simdjson::SUCCESS) fail("provenance", "expected an object");
        constexpr auto umax = std::numeric_limits<unsigned>::max();
        for (auto [k, x] : o) {
            if (k == "gpu")
                p.gpu_name = str(x, "provenance.gpu");
            else if (k == "uuid")
                p.gpu_uuid = str(x, "provenance.uuid");
            else if (k == "date")
                p.date = str(x, "provenance.date");
            else if (k == "ktune")
                p.ktune_version = str(x, "provenance.ktune");
            else if (k == "host")
                p.host = str(x, "provenance.host");
            else if (k == "sm_mhz")
                p.sm_mhz = static_cast<unsigned>(integer(x, 0, umax, "provenance.sm_mhz"));
            else if (k == "memory_mhz")
                p.memory_mhz = static_cast<unsigned>(integer(x, 0, umax, "provenance.memory_mhz"));
        }
    }

    // One pass over the entry's fields in file order (no per-field key search). Unknown fields
    // are skipped: a newer minor version may add some.
    entry read_entry(element j) const {
        object o;
        if (j.get(o) != simdjson::SUCCESS) fail("", "an entry must be a JSON object");
        constexpr auto imax = std::numeric_limits<int>::max();
        constexpr auto i64max = std::numeric_limits<std::int64_t>::max();
        static constexpr std::string_view required[] = {
            "op",           "op_version", "dtype",  "bucket",    "arch",  "toolkit",
            "driver_major", "protocol",   "config", "median_us", "ci_us", "samples"};
        entry e;
        unsigned seen = 0;
        const auto mark = [&](unsigned bit) {
            if (seen & (1u << bit)) fail(required[bit], "field given twice");
            seen |= 1u << bit;
        };
        for (auto [k, v] : o) {
            if (k == "op") {
                mark(0);
                e.key.op = str(v, k);
            } else if (k == "op_version") {
                mark(1);
                e.key.op_version = str(v, k);
            } else if (k == "dtype") {
                mark(2);
                e.key.dtype = str(v, k);
            } else if (k == "bucket") {
                mark(3);
                simdjson::dom::array b;
                if (v.get(b) != simdjson::SUCCESS) fail(k, "expected an array of integers");
                e.key.bucket.reserve(b.size());
                for (element d : b) {
                    if (d.type() == element_type::INT64 && d.get_int64().value_unsafe() >= 0)
                        e.key.bucket.push_back(d.get_int64().value_unsafe());
                    else
                        e.key.bucket.push_back(
                            integer(d, 0, i64max, fmt::format("bucket[{}]", e.key.bucket.size())));
                }
            } else if (k == "arch") {
                mark(4);
                e.key.arch = str(v, k);
            } else if (k == "toolkit") {
                mark(5);
                e.key.toolkit = static_cast<int>(integer(v, 0, imax, k));
            } else if (k == "driver_major") {
                mark(6);
                e.key.driver_major = static_cast<int>(integer(v, 0, imax, k));
            } else if (k == "protocol") {
                mark(7);
                e.key.protocol = static_cast<int>(integer(v, 0, imax, k));
            } else if (k == "config") {
                mark(8);
                e.cfg = read_config(v);
            } else if (k == "median_us") {
                mark(9);
                e.time.median_us = number(v, k);
            } else if (k == "ci_us") {
                mark(10);
                simdjson::dom::array ci;
                if (v.get(ci) != simdjson::SUCCESS || ci.size() != 2)
                    fail(k, "expected [low, high]");
                e.time.ci_low_us = number(ci.at(0).value_unsafe(), "ci_us[0]");
                e.time.ci_high_us = number(ci.at(1).value_unsafe(), "ci_us[1]");
            } else if (k == "samples") {
                mark(11);
                e.time.samples = integer(v, 0, i64max, k);
            } else if (k == "provenance") {
                read_provenance(v, e.origin);
            }
        }
        for (unsigned bit = 0; bit < std::size(required); ++bit)
            if (!(seen & (1u << bit))) fail("", fmt::format("missing field '{}'", required[bit]));
        return e;
    }
};

} // namespace

bool have_simdjson() noexcept {
    return true;
}

namespace {

void check_root(object root, std::string_view name) {
    const auto top_str = [&](std::string_view key) {
        element v;
        std::string_view s;
        if (root[key].get(v) != simdjson::SUCCESS)
            bad(name, "$", fmt::format("missing field '{}'", key));
        if (v.get(s) != simdjson::SUCCESS) bad(name, fmt::format("$.{}", key), "expected a string");
        return s;
    };
    check_schema(top_str("schema"), top_str("version"), name);
}

// The layout format_cache() writes: a header, `"entries": [`, one entry per line, `]`, `}`.
// A raw newline cannot occur inside a JSON string, so line breaks are token boundaries and each
// entry line parses on its own, with one small parser that stays in cache. Parsing the whole
// document instead builds a tape of ~10^8 bytes for 10^5 entries, and its page faults alone
// cost more than the parse (docs/perf/cache.md). nullopt whenever the text is not in this
// layout or a line is not valid JSON: the whole-document reader then decides and diagnoses.
// `text` must have padding_bytes readable bytes after its end.
constexpr std::size_t lines_per_thread = 8192; // below this a thread costs more than it saves

std::optional<std::vector<entry>> parse_lines(std::string_view text, std::string_view name) {
    constexpr std::string_view open = "\n\"entries\": [";
    const std::size_t at = text.find(open);
    if (at == std::string_view::npos) return std::nullopt;
    simdjson::dom::parser parser;
    {
        // The header with an empty entries array must be a complete object of its own.
        const simdjson::padded_string header(std::string(text.substr(0, at)) + "\"entries\": []}");
        element doc;
        object root;
        if (parser.parse(header).get(doc) != simdjson::SUCCESS ||
            doc.get(root) != simdjson::SUCCESS)
            return std::nullopt;
        int entries_keys = 0;
        for (auto [k, v] : root)
            entries_keys += k == "entries";
        if (entries_keys != 1) return std::nullopt;
        check_root(root, name);
    }
    // Pass 1: split the entry lines and check the layout (memchr speed).
    std::size_t pos = at + open.size();
    std::vector<std::string_view> lines;
    if (text.substr(pos, 1) != "]") {
        if (text.substr(pos, 1) != "\n") return std::nullopt;
        ++pos;
        lines.reserve(text.size() / 256);
        for (bool last = false; !last;) {
            const std::size_t eol = text.find('\n', pos);
            if (eol == std::string_view::npos) return std::nullopt;
            std::string_view line = text.substr(pos, eol - pos);
            if (line.size() >= 3 && line.substr(line.size() - 2) == "},")
                line.remove_suffix(1);
            else if (line.size() >= 2 && line.back() == '}')
                last = true;
            else
                return std::nullopt;
            if (line.front() != '{') return std::nullopt;
            lines.push_back(line);
            pos = eol + 1;
        }
    }
    std::string_view tail = text.substr(pos);
    if (tail.substr(0, 3) != "]\n}") return std::nullopt;
    if (tail.find_first_not_of(" \t\r\n", 3) != std::string_view::npos) return std::nullopt;

    // Pass 2: parse the lines, in chunks on several threads for a large file. Each chunk stops
    // at its first problem; taking chunks in order then reports exactly what a serial pass
    // would (the first problem in the file).
    std::vector<entry> out(lines.size());
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t chunks =
        std::clamp<std::size_t>(lines.size() / lines_per_thread, 1, std::min(hw, 16u));
    struct chunk_result {
        bool json_ok = true;
        std::exception_ptr error;
    };
    std::vector<chunk_result> results(chunks);
    const auto run = [&](std::size_t c) {
        const std::size_t first = lines.size() * c / chunks;
        const std::size_t end = lines.size() * (c + 1) / chunks;
        simdjson::dom::parser lp;
        reader r{name, first};
        try {
            for (std::size_t i = first; i < end; ++i, ++r.index) {
                element e;
                if (lp.parse(lines[i].data(), lines[i].size(), false).get(e) != simdjson::SUCCESS) {
                    results[c].json_ok = false;
                    return;
                }
                out[i] = r.read_entry(e);
            }
        } catch (...) {
            results[c].error = std::current_exception();
        }
    };
    if (chunks == 1) {
        run(0);
    } else {
        std::vector<std::thread> pool;
        for (std::size_t c = 1; c < chunks; ++c)
            pool.emplace_back(run, c);
        run(0);
        for (auto& t : pool)
            t.join();
    }
    for (const auto& c : results) {
        if (c.error) std::rethrow_exception(c.error);
        if (!c.json_ok) return std::nullopt;
    }
    return out;
}

} // namespace

std::optional<std::vector<entry>> parse_cache_simdjson(std::string_view text, std::string_view name,
                                                       bool padded) {
    if (padded)
        if (auto fast = parse_lines(text, name)) return fast;
    simdjson::dom::parser parser;
    element doc;
    if (padded) {
        if (parser.parse(text.data(), text.size(), false).get(doc) != simdjson::SUCCESS)
            return std::nullopt;
    } else {
        const simdjson::padded_string copy(text);
        if (parser.parse(copy).get(doc) != simdjson::SUCCESS) return std::nullopt;
    }
    object root;
    if (doc.get(root) != simdjson::SUCCESS) bad(name, "$", "a cache file is a JSON object");
    check_root(root, name);
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
std::optional<std::vector<entry>> parse_cache_simdjson(std::string_view, std::string_view, bool) {
    return std::nullopt;
}
} // namespace ktune::cache::detail

#endif
