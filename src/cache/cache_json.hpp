#pragma once
// Private: the JSON form of cache entries. Two readers build the same entries: simdjson (fast,
// used when the build found it) and nlohmann (always present; also gives the byte offset of a
// syntax error, which simdjson does not).
#include "ktune/cache/entry.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::cache::detail {

nlohmann::ordered_json entry_to_json(const entry& e);

/// Full reader: syntax errors name `name` and the byte offset; field errors the JSON path.
std::vector<entry> parse_cache_nlohmann(std::string_view text, std::string_view name);

/// Fast reader. nullopt for a JSON syntax error (the caller asks the nlohmann reader for the
/// diagnosis); field errors throw like the nlohmann reader. `padded`: text.data() has
/// padding_bytes readable bytes after its end, so it is parsed in place instead of copied.
/// Without simdjson in the build it always returns nullopt.
std::optional<std::vector<entry>> parse_cache_simdjson(std::string_view text, std::string_view name,
                                                       bool padded = false);
inline constexpr std::size_t padding_bytes = 64; // SIMDJSON_PADDING
/// The entry-by-entry reader parse_cache_simdjson tries first: a document whose last key is
/// "entries", one entry per line or all on one line; each entry parsed on its own, large files on
/// several threads. nullopt for another layout, a JSON error, or a build without simdjson. Needs
/// padding_bytes readable bytes after text's end.
std::optional<std::vector<entry>> parse_cache_by_entry(std::string_view text,
                                                       std::string_view name);
bool have_simdjson() noexcept;

/// Shared by both readers: the schema/version check.
void check_schema(std::string_view schema, std::string_view version, std::string_view name);

} // namespace ktune::cache::detail

namespace ktune::cache::detail {
/// One entry as compact JSON (the file's line form), appended to `out`.
void append_entry_json(std::string& out, const entry& e);
/// Whole file; `exists` false (and "" returned) when there is no such file.
std::string read_all(const std::filesystem::path& file, bool& exists);
} // namespace ktune::cache::detail
