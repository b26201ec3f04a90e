// Axes, constraint helpers, codes, neighbours and config conversion of tune::space. Counting
// and sampling live in space_count.cpp.
#include "ktune/tune/space.hpp"
#include "core/fnv1a.hpp"

#include "ktune/core/error.hpp"
#include "tune/space_impl.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ktune::tune {
namespace {

bool same_value(const param_value& a, const param_value& b) {
    const auto num = [](const param_value& v) -> std::optional<double> {
        if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
        if (const auto* d = std::get_if<double>(&v)) return *d;
        return std::nullopt;
    };
    if (auto x = num(a))
        if (auto y = num(b)) return *x == *y;
    return a == b;
}

} // namespace

axis axis::list(std::string name, std::vector<std::int64_t> values) {
    return {std::move(name), axis_kind::values, {values.begin(), values.end()}};
}
axis axis::list(std::string name, std::vector<double> values) {
    return {std::move(name), axis_kind::values, {values.begin(), values.end()}};
}
axis axis::list(std::string name, std::vector<param_value> values) {
    const bool strings = std::any_of(values.begin(), values.end(), [](const param_value& v) {
        return std::holds_alternative<std::string>(v);
    });
    return {std::move(name), strings ? axis_kind::enumeration : axis_kind::values,
            std::move(values)};
}
axis axis::pow2(std::string name, std::int64_t lo, std::int64_t hi) {
    if (lo <= 0 || hi < lo)
        throw error(
            error_kind::usage,
            fmt::format("axis {}: pow2 range needs 0 < lo <= hi (got {}..{})", name, lo, hi));
    axis a{std::move(name), axis_kind::pow2, {}};
    for (std::int64_t v = lo; v <= hi; v *= 2)
        a.values.emplace_back(v);
    return a;
}
axis axis::enumeration(std::string name, std::vector<std::string> values) {
    return {std::move(name), axis_kind::enumeration, {values.begin(), values.end()}};
}
axis axis::boolean(std::string name) {
    return {std::move(name), axis_kind::boolean, {param_value{false}, param_value{true}}};
}

double axis::number(std::size_t i) const {
    const param_value& v = values[i];
    if (const auto* n = std::get_if<std::int64_t>(&v)) return static_cast<double>(*n);
    if (const auto* d = std::get_if<double>(&v)) return *d;
    if (const auto* b = std::get_if<bool>(&v)) return *b ? 1.0 : 0.0;
    return static_cast<double>(i);
}

std::optional<std::uint32_t> axis::index_of(const param_value& v) const {
    for (std::size_t i = 0; i < values.size(); ++i)
        if (same_value(values[i], v)) return static_cast<std::uint32_t>(i);
    return std::nullopt;
}

std::int64_t param_view::i(std::size_t k) const {
    const param_value& v = value(k);
    if (const auto* n = std::get_if<std::int64_t>(&v)) return *n;
    if (const auto* d = std::get_if<double>(&v)) return static_cast<std::int64_t>(*d);
    if (const auto* b = std::get_if<bool>(&v)) return *b ? 1 : 0;
    throw error(error_kind::usage,
                fmt::format("constraint reads string axis {} as an integer", axes_[k]->name));
}

const std::string& param_view::s(std::size_t k) const {
    if (const auto* s = std::get_if<std::string>(&value(k))) return *s;
    throw error(error_kind::usage,
                fmt::format("constraint reads axis {} as a string; it is numeric", axes_[k]->name));
}

constraint product_at_most(std::vector<std::string> names, std::int64_t limit, std::string label) {
    const std::size_t n = names.size();
    return {std::move(names),
            [n, limit](const param_view& v) {
                std::int64_t p = 1;
                for (std::size_t k = 0; k < n; ++k)
                    p *= v.i(k);
                return p <= limit;
            },
            label.empty() ? fmt::format("product <= {}", limit) : std::move(label)};
}

constraint product_at_least(std::vector<std::string> names, std::int64_t limit, std::string label) {
    const std::size_t n = names.size();
    return {std::move(names),
            [n, limit](const param_view& v) {
                std::int64_t p = 1;
                for (std::size_t k = 0; k < n; ++k)
                    p *= v.i(k);
                return p >= limit;
            },
            label.empty() ? fmt::format("product >= {}", limit) : std::move(label)};
}

constraint divides(std::string divisor, std::string dividend) {
    std::string label = fmt::format("{} divides {}", divisor, dividend);
    return {{std::move(divisor), std::move(dividend)},
            [](const param_view& v) { return v.i(0) != 0 && v.i(1) % v.i(0) == 0; },
            std::move(label)};
}

constraint divides_constant(std::string divisor, std::int64_t n) {
    std::string label = fmt::format("{} divides {}", divisor, n);
    return {{std::move(divisor)},
            [n](const param_view& v) { return v.i(0) != 0 && n % v.i(0) == 0; },
            std::move(label)};
}

constraint resource_at_most(std::vector<std::string> scope,
                            std::function<double(const param_view&)> estimate, double limit,
                            std::string label) {
    return {std::move(scope),
            [est = std::move(estimate), limit](const param_view& v) { return est(v) <= limit; },
            std::move(label)};
}

namespace detail {

bool space_impl::passes(std::size_t c, const point& p) const {
    const auto& sc = scopes[c];
    // Scopes are short (a few axes): fixed buffers keep the hot path free of allocation.
    const axis* ax[16];
    std::uint32_t idx[16];
    for (std::size_t k = 0; k < sc.size(); ++k) {
        ax[k] = &axes[sc[k]];
        idx[k] = p[sc[k]];
    }
    return constraints[c].predicate(param_view(ax, idx));
}

bool space_impl::passes_all(const point& p) const {
    for (std::size_t c = 0; c < constraints.size(); ++c)
        if (!passes(c, p)) return false;
    return true;
}

std::uint64_t space_impl::code(const point& p) const {
    std::uint64_t c = 0;
    for (std::size_t a = 0; a < axes.size(); ++a)
        c = c * axes[a].values.size() + p[a];
    return c;
}

} // namespace detail

space::space() : impl_(std::make_shared<detail::space_impl>()) {}
space::space(std::vector<axis> axes) : space() {
    for (auto& a : axes)
        add(std::move(a));
}

detail::space_impl& space::mut() {
    // Copy on write: copies share built tables, so a change must not reach them.
    impl_ = std::make_shared<detail::space_impl>(*impl_);
    return *impl_;
}

space& space::add(axis a) {
    if (a.values.empty())
        throw error(error_kind::input, fmt::format("axis {} has no values", a.name));
    if (axis_index(a.name))
        throw error(error_kind::input, fmt::format("axis {} is defined twice", a.name));
    if (impl_->restricted) throw error(error_kind::usage, "add axes before restrict_to()");
    mut().axes.push_back(std::move(a));
    return *this;
}

space& space::add(constraint c) {
    if (c.scope.empty() || c.scope.size() > 16)
        throw error(error_kind::usage,
                    fmt::format("constraint '{}' needs 1 to 16 axes in its scope", c.label));
    std::vector<std::size_t> sc;
    for (const auto& n : c.scope) {
        auto i = axis_index(n);
        if (!i)
            throw error(error_kind::input,
                        fmt::format("constraint '{}' names unknown axis {}", c.label, n));
        sc.push_back(*i);
    }
    auto& m = mut();
    m.constraints.push_back(std::move(c));
    m.scopes.push_back(std::move(sc));
    if (m.restricted) {
        std::erase_if(m.members, [&](std::uint64_t code) { return !m.passes_all(decode(code)); });
    }
    return *this;
}

space& space::restrict_to(const std::vector<point>& members) {
    (void)cartesian_size(); // codes must fit
    std::vector<std::uint64_t> codes;
    codes.reserve(members.size());
    for (const auto& p : members) {
        if (p.size() != impl_->axes.size())
            throw error(error_kind::usage, "restrict_to: point of the wrong size");
        for (std::size_t a = 0; a < p.size(); ++a)
            if (p[a] >= impl_->axes[a].values.size())
                throw error(error_kind::usage, "restrict_to: value index out of range");
        if (impl_->passes_all(p)) codes.push_back(impl_->code(p));
    }
    std::sort(codes.begin(), codes.end());
    codes.erase(std::unique(codes.begin(), codes.end()), codes.end());
    auto& m = mut();
    m.restricted = true;
    m.members = std::move(codes);
    return *this;
}

const std::vector<axis>& space::axes() const noexcept {
    return impl_->axes;
}
const std::vector<constraint>& space::constraints() const noexcept {
    return impl_->constraints;
}
bool space::restricted() const noexcept {
    return impl_->restricted;
}

std::optional<std::size_t> space::axis_index(std::string_view name) const noexcept {
    for (std::size_t i = 0; i < impl_->axes.size(); ++i)
        if (impl_->axes[i].name == name) return i;
    return std::nullopt;
}

std::uint64_t space::cartesian_size() const {
    std::uint64_t n = 1;
    for (const auto& a : impl_->axes) {
        if (n > (std::uint64_t{1} << 62) / a.values.size())
            throw error(error_kind::unsupported,
                        "the space has more than 2^62 Cartesian points; split it");
        n *= a.values.size();
    }
    return n;
}

bool space::is_valid(const point& p) const {
    if (p.size() != impl_->axes.size()) return false;
    for (std::size_t a = 0; a < p.size(); ++a)
        if (p[a] >= impl_->axes[a].values.size()) return false;
    if (impl_->restricted)
        return std::binary_search(impl_->members.begin(), impl_->members.end(), impl_->code(p));
    return impl_->passes_all(p);
}

std::string space::why_invalid(const point& p) const {
    if (p.size() != impl_->axes.size()) return "wrong number of parameters";
    for (std::size_t a = 0; a < p.size(); ++a)
        if (p[a] >= impl_->axes[a].values.size()) return "value out of range for " + axes()[a].name;
    for (std::size_t c = 0; c < impl_->constraints.size(); ++c)
        if (!impl_->passes(c, p)) return impl_->constraints[c].label;
    if (impl_->restricted && !is_valid(p)) return "not in the recorded space";
    return {};
}

std::vector<point> space::neighbours(const point& p, neighbourhood kind) const {
    std::vector<point> out;
    point q = p;
    for (std::size_t a = 0; a < p.size(); ++a) {
        const auto n = static_cast<std::uint32_t>(impl_->axes[a].values.size());
        const auto consider = [&](std::uint32_t v) {
            q[a] = v;
            if (is_valid(q)) out.push_back(q);
        };
        if (kind == neighbourhood::adjacent && impl_->axes[a].ordered()) {
            if (p[a] > 0) consider(p[a] - 1);
            if (p[a] + 1 < n) consider(p[a] + 1);
        } else {
            for (std::uint32_t v = 0; v < n; ++v)
                if (v != p[a]) consider(v);
        }
        q[a] = p[a];
    }
    return out;
}

std::uint64_t space::code(const point& p) const {
    return impl_->code(p);
}

point space::decode(std::uint64_t c) const {
    point p(impl_->axes.size());
    for (std::size_t a = p.size(); a-- > 0;) {
        const auto n = impl_->axes[a].values.size();
        p[a] = static_cast<std::uint32_t>(c % n);
        c /= n;
    }
    return p;
}

config space::to_config(const point& p) const {
    std::vector<config::entry> e;
    e.reserve(p.size());
    for (std::size_t a = 0; a < p.size(); ++a)
        e.emplace_back(impl_->axes[a].name, impl_->axes[a].values.at(p[a]));
    return config(std::move(e));
}

point space::from_config(const config& c) const {
    point p(impl_->axes.size());
    for (std::size_t a = 0; a < p.size(); ++a) {
        const auto& ax = impl_->axes[a];
        const param_value* v = c.find(ax.name);
        if (!v)
            throw error(error_kind::input,
                        fmt::format("config '{}' lacks parameter {}", c.to_string(), ax.name));
        auto i = ax.index_of(*v);
        if (!i)
            throw error(error_kind::input,
                        fmt::format("config '{}': {}={} is not a value of the space", c.to_string(),
                                    ax.name, ktune::to_string(*v)));
        p[a] = *i;
    }
    return p;
}

bool space::operator==(const space& o) const {
    if (impl_ == o.impl_) return true;
    if (impl_->axes != o.impl_->axes || impl_->scopes != o.impl_->scopes ||
        impl_->restricted != o.impl_->restricted || impl_->members != o.impl_->members)
        return false;
    for (std::size_t c = 0; c < impl_->constraints.size(); ++c)
        if (impl_->constraints[c].label != o.impl_->constraints[c].label) return false;
    return true;
}

std::uint64_t config_hash(const config& c) noexcept {
    return ktune::detail::fnv1a_bytes(ktune::detail::fnv1a_basis, c.to_string());
}

} // namespace ktune::tune
