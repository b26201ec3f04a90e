#pragma once
// The in-memory cache an application looks configs up in. Immutable once built: any number of
// threads read one index with no locks; a reload builds a new index beside the old one.
//
//   auto idx = ktune::cache::cache_index::load("tuned.json");
//   ktune::cache::prepared_key k({"gemm", "v3", "fp16", {4096, 4096}, "sm_90", 13000, 580, 1});
//   auto r = idx.lookup(k, gemm_default);           // r.tier says who answered
//   int bm = r.cfg->get<int>("block_m");

#include "ktune/cache/entry.hpp"
#include "ktune/cache/key.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace ktune::cache {

/// Which tier answered a lookup.
enum class lookup_tier {
    exact,      ///< an entry for exactly this key
    nearest,    ///< same op, version, dtype, arch, toolkit, driver and protocol; nearest bucket
    op_default, ///< nothing tuned applies: the caller's default config
    miss,       ///< nothing tuned applies and no default was given
};
std::string_view to_string(lookup_tier t) noexcept;

struct lookup_result {
    lookup_tier tier = lookup_tier::miss;
    const entry* hit = nullptr;  ///< the entry for exact/nearest; lives as long as the index
    const config* cfg = nullptr; ///< the config to launch with; null on a miss
    explicit operator bool() const noexcept { return cfg != nullptr; }
};

class cache_index {
public:
    cache_index();
    /// Entries with equal keys are reduced by the tie rule (better()).
    explicit cache_index(std::vector<entry> entries);
    ~cache_index();
    cache_index(cache_index&&) noexcept;
    cache_index& operator=(cache_index&&) noexcept;
    cache_index(const cache_index&) = delete;
    cache_index& operator=(const cache_index&) = delete;

    /// Reads a cache file (see store.hpp); throws ktune::error(input) naming the file and byte
    /// offset for a corrupted or truncated one, error(io) where it cannot be read. A file that
    /// does not exist gives an empty index.
    static cache_index load(const std::filesystem::path& file);

    /// Exact key → nearest bucket in the key's family → `op_default` (if given) → miss.
    /// "Nearest": among entries whose key differs only in the bucket and whose bucket has as
    /// many dimensions, the smallest sum over dimensions of |log2(candidate) - log2(wanted)|
    /// (dimensions below 1 count as 1); ties go to a bucket at least as large in every
    /// dimension (its kernel covers the shape), then to the lexicographically smallest bucket.
    [[nodiscard]] lookup_result lookup(const prepared_key& k,
                                       const config* op_default = nullptr) const noexcept;
    [[nodiscard]] lookup_result lookup(const prepared_key& k,
                                       const config& op_default) const noexcept {
        return lookup(k, &op_default);
    }
    /// Convenience: hashes the key on every call.
    [[nodiscard]] lookup_result lookup(const cache_key& k,
                                       const config* op_default = nullptr) const {
        return lookup(prepared_key(k), op_default);
    }

    /// Exact-tier only; null when absent.
    [[nodiscard]] const entry* find(const prepared_key& k) const noexcept;

    /// Every entry, in key_less order.
    [[nodiscard]] std::span<const entry> entries() const noexcept;
    [[nodiscard]] std::size_t size() const noexcept { return entries().size(); }

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

/// Qualified spelling kept for callers (`ktune::cache::index`); unqualified `index` under
/// `using namespace` collides with POSIX ::index(), hence the class name.
using index = cache_index;

} // namespace ktune::cache
