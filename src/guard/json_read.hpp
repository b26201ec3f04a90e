#pragma once
// Checked reading of ktune's JSON files: every error names the file and the JSON path
// ("suite.json: commands[2].repeat: must be a positive integer") so a user can fix the input
// without reading code. Private to src/.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ktune::guard::detail {

/// Parses JSON; a syntax error names source:line:column.
nlohmann::json parse_json(const std::string& text, const std::string& source);

/// A JSON value with where it came from.
struct json_at {
    const nlohmann::json& j;
    std::string source;
    std::string path; ///< "" for the root, "entries[3]" below

    [[noreturn]] void fail(const std::string& field, const std::string& what) const;
    [[nodiscard]] bool has(const char* key) const;
    [[nodiscard]] std::string string(const char* key) const; ///< required, non-empty
    [[nodiscard]] std::string opt_string(const char* key, const std::string& fallback = "") const;
    [[nodiscard]] std::uint64_t opt_uint(const char* key, std::uint64_t fallback) const;
    [[nodiscard]] double opt_number(const char* key, double fallback) const;
    [[nodiscard]] json_at object(const char* key) const;
    [[nodiscard]] json_at array(const char* key) const;
    [[nodiscard]] std::size_t size() const { return j.size(); }
    [[nodiscard]] json_at at(std::size_t i) const;
    /// This array as finite numbers.
    [[nodiscard]] std::vector<double> numbers() const;
    /// This array as strings.
    [[nodiscard]] std::vector<std::string> strings() const;
    [[nodiscard]] std::string child(const std::string& key) const;
};

/// Requires "schema" == name and a "version" whose major equals `major`.
void check_schema(const json_at& root, const char* name, int major);

std::string read_text_file(const std::string& path);
/// Temporary file beside `path`, then rename: readers never see half a file.
void write_text_file_atomic(const std::string& path, const std::string& text);

} // namespace ktune::guard::detail
