// The lookup index: entries sorted by key, an open-addressing table of (hash, position) for the
// exact tier, and per-family position lists for the nearest-bucket tier. Immutable after
// construction, so concurrent readers need no synchronisation at all.
#include "ktune/cache/index.hpp"
#include "ktune/cache/store.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace ktune::cache {

std::string_view to_string(lookup_tier t) noexcept {
    switch (t) {
    case lookup_tier::exact:
        return "exact";
    case lookup_tier::nearest:
        return "nearest";
    case lookup_tier::op_default:
        return "op_default";
    case lookup_tier::miss:
        return "miss";
    }
    return "?";
}

struct cache_index::impl {
    static constexpr std::uint32_t empty = std::numeric_limits<std::uint32_t>::max();
    struct slot {
        std::uint64_t hash = 0;
        std::uint32_t pos = empty;
    };
    std::vector<entry> entries;
    std::vector<slot> slots; // power-of-two size, load factor <= 1/2
    // The nearest tier scans one family (same key but the bucket) of one rank, with the
    // log2 of every bucket precomputed: no logarithms and no string compares per candidate.
    struct group {
        std::uint32_t rep;              // an entry of the family, to check the query against
        std::size_t rank;               // bucket dimensions
        std::vector<std::uint32_t> pos; // entries, in key order
        std::vector<double> logs;       // pos.size() x rank
    };
    std::unordered_map<std::uint64_t, std::vector<group>> families;

    static double log_dim(std::int64_t d) noexcept {
        return std::log2(static_cast<double>(std::max<std::int64_t>(d, 1)));
    }

    void add_to_family(std::uint32_t p) {
        const cache_key& k = entries[p].key;
        auto& groups = families[family_hash(k)];
        group* g = nullptr;
        for (auto& cand : groups)
            if (cand.rank == k.bucket.size() && same_family(entries[cand.rep].key, k)) g = &cand;
        if (!g) g = &groups.emplace_back(group{p, k.bucket.size(), {}, {}});
        g->pos.push_back(p);
        for (auto d : k.bucket)
            g->logs.push_back(log_dim(d));
    }

    explicit impl(std::vector<entry> es) : entries(std::move(es)) {
        const auto by_key = [](const entry& a, const entry& b) { return key_less(a.key, b.key); };
        // A file ktune wrote is sorted and duplicate-free: check in O(n) before sorting.
        bool canonical = std::is_sorted(entries.begin(), entries.end(), by_key);
        for (std::size_t i = 1; canonical && i < entries.size(); ++i)
            canonical = !(entries[i].key == entries[i - 1].key);
        if (!canonical) entries = merge(entries);

        slots.assign(std::bit_ceil(std::max<std::size_t>(16, entries.size() * 2)), slot{});
        const std::size_t mask = slots.size() - 1;
        for (std::uint32_t p = 0; p < entries.size(); ++p) {
            const std::uint64_t h = key_hash(entries[p].key);
            std::size_t i = h & mask;
            while (slots[i].pos != empty)
                i = (i + 1) & mask;
            slots[i] = {h, p};
            add_to_family(p);
        }
    }

    const entry* find(const prepared_key& k) const noexcept {
        const std::size_t mask = slots.size() - 1;
        for (std::size_t i = k.hash & mask;; i = (i + 1) & mask) {
            const slot& s = slots[i];
            if (s.pos == empty) return nullptr;
            if (s.hash == k.hash && entries[s.pos].key == k.key) return &entries[s.pos];
        }
    }

    const entry* nearest(const prepared_key& k) const noexcept {
        auto it = families.find(k.family);
        if (it == families.end()) return nullptr;
        const auto& want = k.key.bucket;
        const std::size_t rank = want.size();
        const group* g = nullptr;
        for (const auto& cand : it->second)
            if (cand.rank == rank && same_family(entries[cand.rep].key, k.key)) g = &cand;
        if (!g) return nullptr;
        // Query logs once; ranks above 8 (none in practice) take the logarithm per candidate.
        constexpr std::size_t max_rank = 8;
        double need_small[max_rank] = {};
        for (std::size_t d = 0; d < rank && d < max_rank; ++d)
            need_small[d] = log_dim(want[d]);
        const auto need = [&](std::size_t d) {
            return d < max_rank ? need_small[d] : log_dim(want[d]);
        };
        std::size_t best = 0;
        double best_dist = 0;
        bool best_covers = false;
        for (std::size_t i = 0; i < g->pos.size(); ++i) {
            const double* have = g->logs.data() + i * rank;
            double dist = 0;
            bool covers = true;
            for (std::size_t d = 0; d < rank; ++d) {
                dist += std::abs(have[d] - need(d));
                covers = covers && have[d] >= need(d);
            }
            // Positions ascend in key order, so on a full tie the first (smallest bucket) stays.
            if (i == 0 || dist < best_dist || (dist == best_dist && covers && !best_covers)) {
                best = i;
                best_dist = dist;
                best_covers = covers;
            }
        }
        return g->pos.empty() ? nullptr : &entries[g->pos[best]];
    }
};

cache_index::cache_index() : impl_(std::make_unique<impl>(std::vector<entry>{})) {}
cache_index::cache_index(std::vector<entry> entries)
    : impl_(std::make_unique<impl>(std::move(entries))) {}
cache_index::~cache_index() = default;
cache_index::cache_index(cache_index&&) noexcept = default;
cache_index& cache_index::operator=(cache_index&&) noexcept = default;

cache_index cache_index::load(const std::filesystem::path& file) {
    return cache_index(read_cache(file));
}

const entry* cache_index::find(const prepared_key& k) const noexcept {
    return impl_->find(k);
}

lookup_result cache_index::lookup(const prepared_key& k, const config* op_default) const noexcept {
    if (const entry* e = impl_->find(k)) return {lookup_tier::exact, e, &e->cfg};
    if (const entry* e = impl_->nearest(k)) return {lookup_tier::nearest, e, &e->cfg};
    if (op_default) return {lookup_tier::op_default, nullptr, op_default};
    return {};
}

std::span<const entry> cache_index::entries() const noexcept {
    return impl_->entries;
}

} // namespace ktune::cache
