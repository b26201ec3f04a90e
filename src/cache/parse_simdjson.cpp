// The fast cache reader (simdjson DOM: validates all of the JSON, then a walk builds entries).
// Error messages match the nlohmann reader; paths are built only when something is wrong.
#include "cache/cache_json.hpp"

#if KTUNE_WITH_SIMDJSON
#include "ktune/core/error.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstring>
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
                fmt::format("{}: {}: {}; the file is left as is: fix that entry in an editor, "
                            "restore the file from a backup, or move it away to start a new cache",
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

bool is_ws(char c) {
    return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}
std::size_t skip_ws(std::string_view t, std::size_t pos) {
    while (pos < t.size() && is_ws(t[pos]))
        ++pos;
    return pos;
}

// One past the '}' that closes the object opening at `pos`, or npos. Strings are skipped with
// memchr (a quote counts as closing unless an odd run of backslashes precedes it), so the scan
// touches few bytes one by one. Only braces are counted: the per-entry parse that follows
// rejects anything that is not exactly one valid object.
std::size_t object_end(std::string_view t, std::size_t pos) {
    int depth = 0;
    for (std::size_t i = pos; i < t.size(); ++i) {
        const char c = t[i];
        if (c == '"') {
            for (;;) {
                const void* q = std::memchr(t.data() + i + 1, '"', t.size() - i - 1);
                if (!q) return std::string_view::npos;
                i = static_cast<std::size_t>(static_cast<const char*>(q) - t.data());
                std::size_t slashes = 0;
                while (t[i - 1 - slashes] == '\\')
                    ++slashes;
                if (slashes % 2 == 0) break;
            }
        } else if (c == '{') {
            ++depth;
        } else if (c == '}' && --depth == 0) {
            return i + 1;
        }
    }
    return std::string_view::npos;
}

struct entries_split {
    std::size_t header_end = 0;            ///< where `"entries"` begins
    std::vector<std::string_view> entries; ///< each element of the array, one object each
};

// A document whose last key is `"entries"` and whose array holds objects, in any whitespace
// layout: ktune's one entry per line (split at newlines: memchr speed) or one line as `jq -c`
// writes it (split by object_end). nullopt for any other shape.
std::optional<entries_split> split_entries(std::string_view text) {
    entries_split out;
    out.header_end = text.find("\"entries\"");
    if (out.header_end == std::string_view::npos) return std::nullopt;
    std::size_t pos = skip_ws(text, out.header_end + 9);
    if (pos >= text.size() || text[pos] != ':') return std::nullopt;
    pos = skip_ws(text, pos + 1);
    if (pos >= text.size() || text[pos] != '[') return std::nullopt;
    const std::size_t first = skip_ws(text, pos + 1);
    // One entry per line when a line break precedes the first entry; never searched for
    // otherwise (on one line the search would run to the end of the document for every entry).
    const bool by_line = text.substr(pos, first - pos).find('\n') != std::string_view::npos;
    pos = first;
    out.entries.reserve(text.size() / 256);
    while (pos < text.size() && text[pos] == '{') {
        // ktune's layout: the entry is the rest of the line, less a trailing comma. A raw
        // newline cannot occur inside a JSON string, so the line ends the entry or the document
        // is not in that layout (and the line then fails to parse as one object).
        const std::size_t eol = by_line ? text.find('\n', pos) : std::string_view::npos;
        std::size_t end = std::string_view::npos;
        if (eol != std::string_view::npos && eol > pos + 1) {
            const bool comma = text[eol - 1] == ',';
            const std::size_t last = comma ? eol - 1 : eol;
            const std::size_t next = skip_ws(text, eol);
            if (text[last - 1] == '}' && next < text.size() && text[next] == (comma ? '{' : ']'))
                end = last;
        }
        if (end == std::string_view::npos) end = object_end(text, pos);
        if (end == std::string_view::npos) return std::nullopt;
        out.entries.push_back(text.substr(pos, end - pos));
        pos = skip_ws(text, end);
        if (pos < text.size() && text[pos] == ',') {
            pos = skip_ws(text, pos + 1);
            if (pos >= text.size() || text[pos] != '{') return std::nullopt;
        }
    }
    if (pos >= text.size() || text[pos] != ']') return std::nullopt;
    pos = skip_ws(text, pos + 1);
    if (pos >= text.size() || text[pos] != '}') return std::nullopt;
    if (skip_ws(text, pos + 1) != text.size()) return std::nullopt;
    return out;
}

// The layout format_cache() writes (a header, `"entries": [`, one entry per line, `]`, `}`) or
// the same document on one line (split_entries): each entry parses on its own, with one small
// parser that stays in cache. Parsing the whole
// document instead builds a tape of ~10^8 bytes for 10^5 entries, and its page faults alone
// cost more than the parse (docs/perf/cache.md). nullopt whenever the text is not in this
// layout or a line is not valid JSON: the whole-document reader then decides and diagnoses.
// `text` must have padding_bytes readable bytes after its end.
constexpr std::size_t lines_per_thread = 8192; // below this a thread costs more than it saves

} // namespace

std::optional<std::vector<entry>> parse_cache_by_entry(std::string_view text,
                                                       std::string_view name) {
    const std::optional<entries_split> split = split_entries(text);
    if (!split) return std::nullopt;
    simdjson::dom::parser parser;
    {
        // The header with an empty entries array must be a complete object of its own.
        const simdjson::padded_string header(std::string(text.substr(0, split->header_end)) +
                                             "\"entries\": []}");
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
    const std::vector<std::string_view>& lines = split->entries;

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

std::optional<std::vector<entry>> parse_cache_simdjson(std::string_view text, std::string_view name,
                                                       bool padded) {
    if (padded)
        if (auto fast = parse_cache_by_entry(text, name)) return fast;
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
std::optional<std::vector<entry>> parse_cache_by_entry(std::string_view, std::string_view) {
    return std::nullopt;
}
} // namespace ktune::cache::detail

#endif
