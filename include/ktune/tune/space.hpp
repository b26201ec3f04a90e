#pragma once
// A tuning space: typed axes, constraints over them, and the valid configs they leave.
//
// Configs travel as ktune::config at the boundary (what a tuner compiles, what a cache stores);
// inside the search they are `point`s, one value index per axis, so a strategy moves, hashes and
// compares them without strings. Validity is counted exactly, never by materialising the
// Cartesian product: the number of valid completions of a partial config depends only on the
// already-chosen axes that still share a constraint with the open ones (the "frontier"), so
// memoising counts per (depth, frontier values) gives exact totals, uniform sampling and
// ranking in memory that grows with the constraint structure, not with the space size
// (docs/perf/search.md: 10^9 Cartesian points, kilobytes of tables).
//
//   ktune::tune::space s;
//   s.add(axis::pow2("block_x", 16, 1024)).add(axis::pow2("block_y", 1, 64))
//    .add(product_at_most({"block_x", "block_y"}, 1024, "threads per block"));
//   ktune::tune::rng r(1);
//   ktune::config c = s.to_config(s.sample(r));

#include "ktune/core/config.hpp"
#include "ktune/core/rng.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::tune {

/// The search's generator is core's (ktune/core/rng.hpp): same seed, same search everywhere.
using ktune::rng;

/// One value index per axis, in the space's axis order.
using point = std::vector<std::uint32_t>;

enum class axis_kind { values, pow2, enumeration, boolean };

/// A named parameter and its finite list of values. Numeric axes are ordered (neighbours are
/// the adjacent values); enums are not (every other value is a neighbour).
struct axis {
    std::string name;
    axis_kind kind = axis_kind::values;
    std::vector<param_value> values;

    static axis list(std::string name, std::vector<std::int64_t> values);
    static axis list(std::string name, std::vector<double> values);
    static axis list(std::string name, std::vector<param_value> values); ///< mixed / as recorded
    /// lo, 2 lo, 4 lo, … ≤ hi (lo, hi > 0).
    static axis pow2(std::string name, std::int64_t lo, std::int64_t hi);
    static axis enumeration(std::string name, std::vector<std::string> values);
    static axis boolean(std::string name);

    [[nodiscard]] bool ordered() const noexcept { return kind != axis_kind::enumeration; }
    /// Numeric view of value i: the number, 0/1 for bools, the index for strings.
    [[nodiscard]] double number(std::size_t i) const;
    /// Index of a value; nullopt when absent. Integers match equal doubles.
    [[nodiscard]] std::optional<std::uint32_t> index_of(const param_value& v) const;

    bool operator==(const axis&) const = default;
};

/// Read access to the values of a constraint's scope, in scope order: v.i(0) is the first name.
class param_view {
public:
    param_view(const axis* const* axes, const std::uint32_t* indices) noexcept
        : axes_(axes), indices_(indices) {}
    [[nodiscard]] std::int64_t i(std::size_t k) const;
    [[nodiscard]] double d(std::size_t k) const { return axes_[k]->number(indices_[k]); }
    [[nodiscard]] bool b(std::size_t k) const { return d(k) != 0.0; }
    [[nodiscard]] const std::string& s(std::size_t k) const;
    [[nodiscard]] const param_value& value(std::size_t k) const {
        return axes_[k]->values[indices_[k]];
    }

private:
    const axis* const* axes_;
    const std::uint32_t* indices_;
};

/// A predicate over a few named axes. It is checked as soon as its scope is assigned, so a
/// narrow scope prunes early and keeps the counting tables small.
struct constraint {
    std::vector<std::string> scope;
    std::function<bool(const param_view&)> predicate;
    std::string label; ///< what a rejected config is told, e.g. "threads per block <= 1024"
};

/// Π names ≤ limit (threads per block, registers × threads, …).
constraint product_at_most(std::vector<std::string> names, std::int64_t limit, std::string label);
/// Π names ≥ limit (e.g. at least one warp).
constraint product_at_least(std::vector<std::string> names, std::int64_t limit, std::string label);
/// dividend % divisor == 0, both axes.
constraint divides(std::string divisor, std::string dividend);
/// n % axis == 0: a tile must divide the problem size.
constraint divides_constant(std::string divisor, std::int64_t n);
/// A resource estimate (shared memory bytes, registers) must stay ≤ limit.
constraint resource_at_most(std::vector<std::string> scope,
                            std::function<double(const param_view&)> estimate, double limit,
                            std::string label);

enum class neighbourhood {
    adjacent, ///< one axis moves to an adjacent value (ordered) or any value (enum)
    hamming,  ///< one axis takes any other value
};

namespace detail {
struct space_impl;
}

/// Value type (copies share immutable tables; adding an axis or constraint copies on write).
class space {
public:
    space();
    explicit space(std::vector<axis> axes);

    space& add(axis a);       ///< throws input on a duplicate name or an empty axis
    space& add(constraint c); ///< throws input when the scope names an unknown axis
    /// Replay: the valid configs are exactly these (a recording), not the constraints'.
    space& restrict_to(const std::vector<point>& members);

    [[nodiscard]] const std::vector<axis>& axes() const noexcept;
    [[nodiscard]] const std::vector<constraint>& constraints() const noexcept;
    [[nodiscard]] std::optional<std::size_t> axis_index(std::string_view name) const noexcept;
    [[nodiscard]] bool restricted() const noexcept;

    /// Π axis sizes; throws unsupported beyond 2^62.
    [[nodiscard]] std::uint64_t cartesian_size() const;
    /// Exact number of valid configs (counted once, then cached).
    [[nodiscard]] std::uint64_t valid_count() const;

    [[nodiscard]] bool is_valid(const point& p) const;
    /// Label of the first constraint p breaks; empty when valid.
    [[nodiscard]] std::string why_invalid(const point& p) const;

    /// A uniformly drawn valid config; throws input when the space has none.
    [[nodiscard]] point sample(rng& r) const;
    /// The r-th valid config (0 ≤ r < valid_count()) in the space's enumeration order.
    [[nodiscard]] point unrank(std::uint64_t r) const;
    /// Calls f on every valid config in enumeration order until f returns false.
    void for_each_valid(const std::function<bool(const point&)>& f) const;

    /// Valid neighbours of p (p itself excluded), in a fixed order.
    [[nodiscard]] std::vector<point> neighbours(const point& p, neighbourhood kind) const;

    /// Mixed-radix index in the Cartesian product: a compact, order-free identity within a space.
    [[nodiscard]] std::uint64_t code(const point& p) const;
    [[nodiscard]] point decode(std::uint64_t code) const;

    [[nodiscard]] config to_config(const point& p) const;
    /// Throws input naming the parameter when c lacks an axis or holds an unknown value.
    [[nodiscard]] point from_config(const config& c) const;

    bool operator==(const space& o) const; ///< same axes, constraint labels and members

private:
    detail::space_impl& mut();
    std::shared_ptr<detail::space_impl> impl_;
};

/// Stable 64-bit identity of a config: FNV-1a of its canonical "name=value,…" string. Same on
/// every platform and run (std::hash is neither).
std::uint64_t config_hash(const config& c) noexcept;

} // namespace ktune::tune
