#pragma once
// The cache file: JSON with a schema name and version, one entry per key.
//
// Writers never lose each other's entries: store() takes an exclusive flock on "<file>.lock"
// (removed again on release), reads the file, merges (tie rule), writes a temporary beside it,
// fsyncs it, renames it over the file and fsyncs the directory. A reader therefore sees the old or
// the new file, never a torn one, even when a writer is killed mid-write. A file that does not
// parse is never overwritten: the error names the file and byte offset and says what to do.
//
//   ktune::cache::store(ktune::cache::default_cache_path(), winner);

#include "ktune/cache/entry.hpp"

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::cache {

inline constexpr std::string_view schema_name = "ktune.cache";
inline constexpr std::string_view schema_version = "1.0.0";

/// $KTUNE_CACHE, else $XDG_CACHE_HOME/ktune/cache.json, else ~/.cache/ktune/cache.json.
std::filesystem::path default_cache_path();

/// Parses a cache document. `name` appears in errors (a file name). Throws ktune::error(input)
/// with the byte offset for malformed JSON, and the JSON path for a malformed entry or an
/// unknown schema major version. Entries come back in file order (duplicates kept).
std::vector<entry> parse_cache(std::string_view text, std::string_view name);
/// The file's entries; a missing file is an empty cache.
std::vector<entry> read_cache(const std::filesystem::path& file);
/// The document for `entries` (sorted by key_less; one entry per line, so diffs stay readable).
std::string format_cache(std::span<const entry> entries);

/// Tie-rule merge: one entry per key, the better() one; result sorted by key_less. Associative,
/// commutative and idempotent: any grouping or order of inputs gives the same bytes.
std::vector<entry> merge(std::span<const entry> a, std::span<const entry> b = {});

struct store_report {
    std::size_t added = 0;    ///< keys that were not in the file
    std::size_t replaced = 0; ///< keys whose entry the new one beat
    std::size_t kept = 0;     ///< keys whose existing entry won the tie rule
    std::size_t total = 0;    ///< entries in the file afterwards
};

/// Read-merge-write under the file lock (see above). Creates the file and its directory.
store_report store(const std::filesystem::path& file, std::span<const entry> entries);
inline store_report store(const std::filesystem::path& file, const entry& e) {
    return store(file, std::span<const entry>(&e, 1));
}

/// Selects entries by key fields; an empty/absent field matches anything.
struct key_filter {
    std::string op, op_version, dtype, arch;
    std::optional<std::vector<std::int64_t>> bucket;
    std::optional<int> toolkit, driver_major, protocol;
    [[nodiscard]] bool matches(const cache_key& k) const noexcept;
};

/// Removes matching entries under the file lock; returns how many went.
std::size_t remove(const std::filesystem::path& file, const key_filter& f);

/// Atomically replaces the file with exactly `entries` (merged first), under the file lock.
void write_cache(const std::filesystem::path& file, std::span<const entry> entries);

struct merge_report {
    std::size_t entries_in = 0;  ///< entries read from all inputs
    std::size_t entries_out = 0; ///< entries in the output afterwards
};
/// Merges the input files (tie rule) into `output`, replacing it atomically. The output's lock
/// is held from before the first input is read until the output is replaced, so the output may
/// be one of the inputs and concurrent merges into one output lose nothing. A missing input
/// throws error(not_found).
merge_report merge_files(std::span<const std::filesystem::path> inputs,
                         const std::filesystem::path& output);

struct verify_issue {
    std::size_t index = 0; ///< entry position in the file
    std::string key;       ///< cache_key::to_string()
    std::string problem;
};
/// Parses the file (throws like read_cache) and lists entries that are not usable: duplicate
/// keys, invalid measurements (validate()), empty configs.
std::vector<verify_issue> verify(const std::filesystem::path& file);

} // namespace ktune::cache
