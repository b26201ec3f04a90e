#pragma once
// Private state of tune::space, shared by space.cpp (axes, codes, neighbours) and
// space_count.cpp (exact counting, uniform sampling, ranking).

#include "ktune/tune/space.hpp"

#include <memory>
#include <mutex>
#include <unordered_map>

namespace ktune::tune::detail {

/// Exact counts of valid completions, memoised per (depth, frontier values); see space.hpp.
struct counter {
    std::vector<std::size_t> order;                  ///< depth → axis index
    std::vector<std::vector<std::size_t>> checks_at; ///< depth → constraints completed there
    std::vector<std::vector<std::size_t>> frontier;  ///< depth → axes the count depends on
    std::vector<std::unordered_map<std::uint64_t, std::uint64_t>> memo; ///< depth → key → count
    std::uint64_t total = 0;
};

struct space_impl {
    std::vector<axis> axes;
    std::vector<constraint> constraints;
    std::vector<std::vector<std::size_t>> scopes; ///< constraint → axis indices
    bool restricted = false;
    std::vector<std::uint64_t> members; ///< sorted codes when restricted

    // Built once on first use, read-only afterwards (copies share the built tables).
    mutable std::once_flag built;
    mutable std::unique_ptr<counter> count;

    space_impl() = default;
    space_impl(const space_impl& o)
        : axes(o.axes), constraints(o.constraints), scopes(o.scopes), restricted(o.restricted),
          members(o.members) {}

    [[nodiscard]] bool passes(std::size_t c, const point& p) const;
    [[nodiscard]] bool passes_all(const point& p) const;
    [[nodiscard]] std::uint64_t code(const point& p) const;
    [[nodiscard]] const counter& counts() const; ///< builds on first call (constraint spaces)
};

} // namespace ktune::tune::detail
