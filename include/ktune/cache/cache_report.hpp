#pragma once
// The reports of `ktune cache ls|get|merge|verify|rm|push|pull`: for each command its JSON
// (schema ktune.cache.<command>: docs/formats.md, sections "ktune.cache.get / .ls / …" and
// "ktune.cache.push / ktune.cache.pull") and its terminal text, so an application or script gets
// the same documents the CLI prints.
//
//   const auto idx = ktune::cache::cache_index::load(file);
//   ktune::cache::key_filter softmax;
//   softmax.op = "softmax";
//   std::puts(ktune::cache::ls_json(file, idx.entries(), softmax).c_str());

#include "ktune/cache/entry.hpp"
#include "ktune/cache/index.hpp"
#include "ktune/cache/shared_tier.hpp"
#include "ktune/cache/store.hpp"

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace ktune::cache {

/// Version of every ktune.cache.<command> report.
inline constexpr std::string_view cache_report_version = "1.0.0";

/// `cache ls`: the entries of `file` that `filter` matches, in the order given.
std::string ls_json(const std::filesystem::path& file, std::span<const entry> entries,
                    const key_filter& filter);
/// One block per matching entry, then "<shown> of <total> entries in <file>".
std::string format_ls(const std::filesystem::path& file, std::span<const entry> entries,
                      const key_filter& filter);

/// `cache get`: the lookup of `query` in `file`; `asked_shared` (a shared tier was asked) adds
/// `from_redis`.
std::string get_json(const std::filesystem::path& file, const cache_key& query,
                     const through_result& r, bool asked_shared);
/// The tier, the entry and its measurement; or "miss: …".
std::string format_get(const std::filesystem::path& file, const cache_key& query,
                       const through_result& r);

/// `cache merge`: `inputs` merged into `output`.
std::string merge_json(std::span<const std::string> inputs, const std::string& output,
                       const merge_report& r);
std::string format_merge(std::span<const std::string> inputs, const std::string& output,
                         const merge_report& r);

/// `cache verify`: the problems verify() found in `file` (none: valid).
std::string verify_json(const std::filesystem::path& file, std::span<const verify_issue> issues);
/// "<file>: valid (<entries> entries)", or one line per problem.
std::string format_verify(const std::filesystem::path& file, std::span<const verify_issue> issues,
                          std::size_t entries);

/// `cache rm`: how many entries remove() took out of `file`.
std::string rm_json(const std::filesystem::path& file, std::size_t removed);
std::string format_rm(const std::filesystem::path& file, std::size_t removed);

/// `cache push`: `written` of the file's `entries` sent to the shared tier at `redis` (the
/// others: the shared tier held a better entry).
struct push_report {
    std::filesystem::path file;
    std::string redis;
    std::size_t entries = 0;
    std::size_t written = 0;
};
std::string push_json(const push_report& r);
std::string format_push(const push_report& r);

/// `cache pull`: the shared tier's valid `entries` stored into the file; `rejected` values were
/// not valid entries for their key.
struct pull_report {
    std::filesystem::path file;
    std::string redis;
    std::size_t entries = 0;
    store_report stored;
    std::size_t rejected = 0;
};
std::string pull_json(const pull_report& r);
/// The counts, and a warning line when values were rejected.
std::string format_pull(const pull_report& r);

} // namespace ktune::cache
