// Checked JSON reading with file + JSON path in every error.
#include "guard/json_read.hpp"

#include "core/line_column.hpp"

#include "ktune/core/atomic_file.hpp"
#include "ktune/core/error.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace ktune::guard::detail {

namespace {

// nlohmann's parse_error::byte counts from 1: the byte before it is the offending one.
std::string line_column(const std::string& text, std::size_t byte) {
    return ktune::detail::line_column(text, byte ? byte - 1 : 0);
}

// The key of the member that holds byte `at` (the last "name": before it), for messages about
// a value the parser rejects without saying where (a number out of range).
std::string key_before(const std::string& text, std::size_t at) {
    for (std::size_t colon = text.rfind(':', at); colon != std::string::npos && colon > 0;
         colon = text.rfind(':', colon - 1)) {
        std::size_t q = text.find_last_not_of(" \t\r\n", colon - 1);
        if (q == std::string::npos || text[q] != '"') continue;
        const std::size_t open = text.rfind('"', q - 1);
        if (open == std::string::npos) break;
        return text.substr(open + 1, q - open - 1);
    }
    return "";
}

} // namespace

nlohmann::json parse_json(const std::string& text, const std::string& source) {
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        throw error(error_kind::input, source + ":" + line_column(text, e.byte) +
                                           ": not valid JSON (" + e.what() + ")");
    } catch (const nlohmann::json::exception& e) {
        // A number beyond double ("1e999") is reported with the number but no position: find it.
        const std::string what = e.what();
        const auto open = what.find('\''), close = what.rfind('\'');
        std::string where;
        if (open != std::string::npos && close > open + 1) {
            const std::string token = what.substr(open + 1, close - open - 1);
            if (const auto at = text.find(token); at != std::string::npos) {
                where = ":" + line_column(text, at + 1);
                if (const auto key = key_before(text, at); !key.empty())
                    where += ": key '" + key + "'";
            }
        }
        throw error(error_kind::input, source + where + ": not a usable JSON value (" + what + ")");
    }
}

std::string json_at::child(const std::string& key) const {
    return path.empty() ? key : path + "." + key;
}

void json_at::fail(const std::string& field, const std::string& what) const {
    const std::string where = field.empty() ? (path.empty() ? "(root)" : path) : child(field);
    throw error(error_kind::input, source + ": " + where + ": " + what);
}

bool json_at::has(const char* key) const {
    return j.is_object() && j.contains(key) && !j.at(key).is_null();
}

std::string json_at::string(const char* key) const {
    if (!has(key)) fail(key, "is required");
    const auto& v = j.at(key);
    if (!v.is_string() || v.get_ref<const std::string&>().empty())
        fail(key, "must be a non-empty string");
    return v.get<std::string>();
}

std::string json_at::opt_string(const char* key, const std::string& fallback) const {
    if (!has(key)) return fallback;
    if (!j.at(key).is_string()) fail(key, "must be a string");
    return j.at(key).get<std::string>();
}

std::uint64_t json_at::opt_uint(const char* key, std::uint64_t fallback) const {
    if (!has(key)) return fallback;
    const auto& v = j.at(key);
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
        fail(key, "must be a non-negative integer");
    return v.get<std::uint64_t>();
}

double json_at::opt_number(const char* key, double fallback) const {
    if (!has(key)) return fallback;
    const auto& v = j.at(key);
    if (!v.is_number() || !std::isfinite(v.get<double>())) fail(key, "must be a finite number");
    return v.get<double>();
}

json_at json_at::object(const char* key) const {
    if (!has(key) || !j.at(key).is_object()) fail(key, "must be an object");
    return {j.at(key), source, child(key)};
}

json_at json_at::array(const char* key) const {
    if (!has(key) || !j.at(key).is_array()) fail(key, "must be an array");
    return {j.at(key), source, child(key)};
}

json_at json_at::at(std::size_t i) const {
    const std::string p = path + "[" + std::to_string(i) + "]";
    if (!j.at(i).is_object())
        throw error(error_kind::input, source + ": " + p + ": must be an object");
    return {j.at(i), source, p};
}

std::vector<double> json_at::numbers() const {
    // A string or object has a size too, and at(i) on one throws json's own error.
    if (!j.is_array())
        throw error(error_kind::input, source + ": " + path + ": must be an array of numbers");
    std::vector<double> out;
    out.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i) {
        const auto& v = j.at(i);
        if (!v.is_number() || !std::isfinite(v.get<double>()))
            throw error(error_kind::input,
                        source + ": " + path + "[" + std::to_string(i) + "]: not a finite number");
        out.push_back(v.get<double>());
    }
    return out;
}

std::vector<std::string> json_at::strings() const {
    if (!j.is_array())
        throw error(error_kind::input, source + ": " + path + ": must be an array of strings");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < j.size(); ++i) {
        if (!j.at(i).is_string())
            throw error(error_kind::input,
                        source + ": " + path + "[" + std::to_string(i) + "]: must be a string");
        out.push_back(j.at(i).get<std::string>());
    }
    return out;
}

void check_schema(const json_at& root, const char* name, int major) {
    if (!root.j.is_object()) root.fail("", std::string("expected a ") + name + " JSON object");
    const std::string schema = root.opt_string("schema");
    if (schema != name) root.fail("schema", "is '" + schema + "', expected '" + name + "'");
    const std::string version = root.string("version");
    int got = -1;
    if (std::sscanf(version.c_str(), "%d.", &got) != 1 || got != major)
        root.fail("version", "'" + version + "' is not version " + std::to_string(major) +
                                 ".x, which this ktune reads; use a ktune that matches the file");
}

std::string read_text_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw error(error_kind::io, path + ": cannot open for reading");
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void write_text_file_atomic(const std::string& path, const std::string& text) {
    write_file_atomically(path, text);
}

} // namespace ktune::guard::detail
