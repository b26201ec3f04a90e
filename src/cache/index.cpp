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
    std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> families;

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
            families[family_hash(entries[p].key)].push_back(p);
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
        const entry* best = nullptr;
        double best_dist = 0;
        bool best_covers = false;
        for (const std::uint32_t p : it->second) {
            const entry& e = entries[p];
            if (!same_family(e.key, k.key) || e.key.bucket.size() != want.size()) continue;
            double dist = 0;
            bool covers = true;
            for (std::size_t d = 0; d < want.size(); ++d) {
                const auto have = std::max<std::int64_t>(e.key.bucket[d], 1);
                const auto need = std::max<std::int64_t>(want[d], 1);
                dist += std::abs(std::log2(static_cast<double>(have)) -
                                 std::log2(static_cast<double>(need)));
                covers = covers && have >= need;
            }
            // Positions ascend in key order, so on a full tie the first (smallest bucket) stays.
            if (!best || dist < best_dist || (dist == best_dist && covers && !best_covers)) {
                best = &e;
                best_dist = dist;
                best_covers = covers;
            }
        }
        return best;
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
