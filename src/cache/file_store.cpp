// The file store: the writers' lock (file_lock.hpp) around read-merge-write, and an atomic
// replace (ktune/core/atomic_file.hpp: temporary, fsync, rename, fsync of the directory).
#include "cache/cache_json.hpp"
#include "cache/file_lock.hpp"
#include "ktune/cache/store.hpp"
#include "ktune/core/atomic_file.hpp"
#include "ktune/core/env.hpp"
#include "ktune/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>

namespace ktune::cache {
namespace {

using detail::file_lock;

// Readers see the old file or the new one, never a mix: the new bytes are durable before the
// rename makes them visible, and the rename is durable before store() returns.
void replace_atomically(const std::filesystem::path& file, std::string_view text) {
    write_file_atomically(file, text);
}

void ensure_parent(const std::filesystem::path& file) {
    if (!file.has_parent_path()) return;
    std::error_code ec;
    std::filesystem::create_directories(file.parent_path(), ec);
    if (ec)
        throw error(error_kind::io, fmt::format("cannot create directory {}: {}",
                                                file.parent_path().string(), ec.message()));
}

// The current entries under the lock. A file that does not parse throws here, before anything
// is written, so a corrupted cache is reported and kept for inspection, never overwritten.
std::vector<entry> read_locked(const std::filesystem::path& file) {
    return read_cache(file);
}

void check_entries(std::span<const entry> entries) {
    for (const auto& e : entries)
        if (auto why = validate(e); !why.empty())
            throw error(error_kind::usage,
                        fmt::format("refusing to store {}: {}", e.key.to_string(), why));
}

} // namespace

std::filesystem::path default_cache_path() {
    if (const char* p = std::getenv(ktune::env::cache); p && *p) return p;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
        return std::filesystem::path(x) / "ktune" / "cache.json";
    if (const char* h = std::getenv("HOME"); h && *h)
        return std::filesystem::path(h) / ".cache" / "ktune" / "cache.json";
    return std::filesystem::path("ktune-cache.json");
}

store_report store(const std::filesystem::path& file, std::span<const entry> entries) {
    check_entries(entries);
    ensure_parent(file);
    const file_lock lock(file);
    std::vector<entry> existing = read_locked(file);
    const auto by_key = [](const entry& a, const entry& b) { return key_less(a.key, b.key); };
    if (!std::is_sorted(existing.begin(), existing.end(), by_key))
        std::stable_sort(existing.begin(), existing.end(), by_key);
    store_report r;
    for (const auto& e : entries) {
        auto it = std::lower_bound(existing.begin(), existing.end(), e, by_key);
        if (it == existing.end() || !(it->key == e.key))
            ++r.added;
        else if (better(e, *it))
            ++r.replaced;
        else
            ++r.kept;
    }
    const std::vector<entry> merged = merge(existing, entries);
    r.total = merged.size();
    replace_atomically(file, format_cache(merged));
    return r;
}

void write_cache(const std::filesystem::path& file, std::span<const entry> entries) {
    check_entries(entries);
    ensure_parent(file);
    const file_lock lock(file);
    replace_atomically(file, format_cache(merge(entries)));
}

merge_report merge_files(std::span<const std::filesystem::path> inputs,
                         const std::filesystem::path& output) {
    for (const auto& in : inputs)
        if (!std::filesystem::exists(in))
            throw error(error_kind::not_found, fmt::format("no cache file {}", in.string()));
    ensure_parent(output);
    // The output's lock is taken before any input is read: an input that is the output (the
    // fleet file merged into itself) is then read as the last writer left it, so concurrent
    // merges into one file each keep what the others added.
    const file_lock lock(output);
    std::vector<entry> all;
    for (const auto& in : inputs) {
        auto es = read_cache(in);
        all.insert(all.end(), std::make_move_iterator(es.begin()),
                   std::make_move_iterator(es.end()));
    }
    check_entries(all);
    merge_report r;
    r.entries_in = all.size();
    const std::vector<entry> merged = merge(all);
    r.entries_out = merged.size();
    replace_atomically(output, format_cache(merged));
    return r;
}

bool key_filter::matches(const cache_key& k) const noexcept {
    return (op.empty() || op == k.op) && (op_version.empty() || op_version == k.op_version) &&
           (dtype.empty() || dtype == k.dtype) && (arch.empty() || arch == k.arch) &&
           (!bucket || *bucket == k.bucket) && (!toolkit || *toolkit == k.toolkit) &&
           (!driver_major || *driver_major == k.driver_major) &&
           (!protocol || *protocol == k.protocol);
}

std::size_t remove(const std::filesystem::path& file, const key_filter& f) {
    const file_lock lock(file);
    std::vector<entry> existing = read_locked(file);
    const auto before = existing.size();
    std::erase_if(existing, [&f](const entry& e) { return f.matches(e.key); });
    const auto removed = before - existing.size();
    if (removed) replace_atomically(file, format_cache(existing));
    return removed;
}

std::vector<verify_issue> verify(const std::filesystem::path& file) {
    bool exists = false;
    const std::string text = detail::read_all(file, exists);
    if (!exists) throw error(error_kind::not_found, fmt::format("no cache file {}", file.string()));
    const std::vector<entry> entries = parse_cache(text, file.string());
    std::vector<verify_issue> issues;
    std::vector<std::size_t> order(entries.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return key_less(entries[a].key, entries[b].key);
    });
    for (std::size_t i = 1; i < order.size(); ++i)
        if (entries[order[i]].key == entries[order[i - 1]].key)
            issues.push_back({order[i], entries[order[i]].key.to_string(),
                              fmt::format("duplicate key (also entry {})", order[i - 1])});
    for (std::size_t i = 0; i < entries.size(); ++i)
        if (auto why = validate(entries[i]); !why.empty())
            issues.push_back({i, entries[i].key.to_string(), why});
    std::stable_sort(
        issues.begin(), issues.end(),
        [](const verify_issue& a, const verify_issue& b) { return a.index < b.index; });
    return issues;
}

} // namespace ktune::cache
