// Exact counting of valid configs without enumerating the Cartesian product, and the uniform
// sampling and ranking it enables.
//
// Axes are assigned in a search order. At depth i the number of valid completions of a partial
// config depends only on its "frontier": the assigned axes that share a constraint with an axis
// not yet assigned (every other assigned axis can no longer affect validity). So
// count(i, frontier values) is memoised. Sampling walks down the order choosing each value with
// probability count(child) / count(parent): every valid config is drawn with probability
// Π count(child)/count(parent) = 1 / count(root), i.e. exactly uniform, with no rejection, so
// rare validity costs nothing. Memory is Σ_i Π_{frontier_i} |axis| entries at most, set by how
// constraints couple axes, independent of how many axes multiply the space's size.
#include "ktune/core/error.hpp"
#include "ktune/tune/space.hpp"
#include "tune/space_impl.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace ktune::tune {
namespace detail {
namespace {

// Greedy order: next the axis that keeps the frontier product smallest, so counting tables
// stay small. Axes in no constraint go last (they never enter a frontier).
void plan(const space_impl& s, counter& c) {
    const std::size_t n = s.axes.size();
    std::vector<bool> placed(n, false);
    std::vector<std::size_t> uses(n, 0);
    for (const auto& sc : s.scopes)
        for (auto a : sc)
            ++uses[a];
    const auto frontier_after = [&](const std::vector<bool>& done) {
        std::vector<std::size_t> f;
        for (std::size_t a = 0; a < n; ++a) {
            if (!done[a]) continue;
            for (const auto& sc : s.scopes) {
                const bool has_a = std::find(sc.begin(), sc.end(), a) != sc.end();
                const bool open =
                    std::any_of(sc.begin(), sc.end(), [&](auto b) { return !done[b]; });
                if (has_a && open) {
                    f.push_back(a);
                    break;
                }
            }
        }
        return f;
    };
    const auto product = [&](const std::vector<std::size_t>& f) {
        double p = 1;
        for (auto a : f)
            p *= static_cast<double>(s.axes[a].values.size());
        return p;
    };
    c.frontier.push_back({});
    for (std::size_t depth = 0; depth < n; ++depth) {
        std::size_t best = n;
        double best_cost = 0;
        for (std::size_t a = 0; a < n; ++a) {
            if (placed[a]) continue;
            auto trial = placed;
            trial[a] = true;
            const double cost = (uses[a] == 0 ? 1e300 : product(frontier_after(trial)));
            if (best == n || cost < best_cost) {
                best = a;
                best_cost = cost;
            }
        }
        placed[best] = true;
        c.order.push_back(best);
        c.frontier.push_back(frontier_after(placed));
    }
    std::vector<std::size_t> pos(n);
    for (std::size_t d = 0; d < n; ++d)
        pos[c.order[d]] = d;
    c.checks_at.assign(n, {});
    for (std::size_t k = 0; k < s.scopes.size(); ++k) {
        std::size_t last = 0;
        for (auto a : s.scopes[k])
            last = std::max(last, pos[a]);
        c.checks_at[last].push_back(k);
    }
    c.memo.assign(n + 1, {});
}

std::uint64_t key(const space_impl& s, const counter& c, std::size_t depth, const point& p) {
    std::uint64_t k = 0;
    for (auto a : c.frontier[depth])
        k = k * s.axes[a].values.size() + p[a];
    return k;
}

bool checks_pass(const space_impl& s, const counter& c, std::size_t depth, const point& p) {
    for (auto k : c.checks_at[depth])
        if (!s.passes(k, p)) return false;
    return true;
}

std::uint64_t count_from(const space_impl& s, counter& c, std::size_t depth, point& p) {
    if (depth == c.order.size()) return 1;
    const std::uint64_t k = key(s, c, depth, p);
    if (auto it = c.memo[depth].find(k); it != c.memo[depth].end()) return it->second;
    const std::size_t a = c.order[depth];
    std::uint64_t total = 0;
    for (std::uint32_t v = 0; v < s.axes[a].values.size(); ++v) {
        p[a] = v;
        if (checks_pass(s, c, depth, p)) total += count_from(s, c, depth + 1, p);
    }
    p[a] = 0;
    c.memo[depth].emplace(k, total);
    return total;
}

// Read-only lookup after the build: every state a consistent prefix can reach was counted
// (a state's children depend only on its frontier values), so a miss is a bug.
std::uint64_t lookup(const space_impl& s, const counter& c, std::size_t depth, const point& p) {
    if (depth == c.order.size()) return 1;
    auto it = c.memo[depth].find(key(s, c, depth, p));
    if (it == c.memo[depth].end()) throw error(error_kind::internal, "space count table miss");
    return it->second;
}

// Descends choosing, at each depth, the child whose cumulative count range holds r.
point descend(const space_impl& s, std::uint64_t r) {
    const counter& c = s.counts();
    point p(s.axes.size(), 0);
    for (std::size_t depth = 0; depth < c.order.size(); ++depth) {
        const std::size_t a = c.order[depth];
        bool chosen = false;
        for (std::uint32_t v = 0; v < s.axes[a].values.size() && !chosen; ++v) {
            p[a] = v;
            if (!checks_pass(s, c, depth, p)) continue;
            const std::uint64_t n = lookup(s, c, depth + 1, p);
            if (r < n)
                chosen = true;
            else
                r -= n;
        }
        if (!chosen) throw error(error_kind::internal, "space rank out of range");
    }
    return p;
}

bool walk(const space_impl& s, const counter& c, std::size_t depth, point& p,
          const std::function<bool(const point&)>& f) {
    if (depth == c.order.size()) return f(p);
    const std::size_t a = c.order[depth];
    for (std::uint32_t v = 0; v < s.axes[a].values.size(); ++v) {
        p[a] = v;
        if (checks_pass(s, c, depth, p) && lookup(s, c, depth + 1, p) > 0 &&
            !walk(s, c, depth + 1, p, f))
            return false;
    }
    p[a] = 0;
    return true;
}

} // namespace

const counter& space_impl::counts() const {
    std::call_once(built, [this] {
        auto c = std::make_unique<counter>();
        plan(*this, *c);
        point p(axes.size(), 0);
        c->total = count_from(*this, *c, 0, p);
        count = std::move(c);
    });
    return *count;
}

} // namespace detail

std::uint64_t space::valid_count() const {
    if (impl_->restricted) return impl_->members.size();
    (void)cartesian_size(); // codes and counts must fit in 64 bits
    return impl_->counts().total;
}

point space::unrank(std::uint64_t r) const {
    if (r >= valid_count())
        throw error(
            error_kind::usage,
            fmt::format("rank {} out of range: the space has {} valid configs", r, valid_count()));
    if (impl_->restricted) return decode(impl_->members[r]);
    return detail::descend(*impl_, r);
}

point space::sample(rng& r) const {
    const std::uint64_t n = valid_count();
    if (n == 0) throw error(error_kind::input, "the space has no valid config: check constraints");
    return unrank(r.below(n));
}

void space::for_each_valid(const std::function<bool(const point&)>& f) const {
    if (impl_->restricted) {
        for (auto c : impl_->members)
            if (!f(decode(c))) return;
        return;
    }
    if (valid_count() == 0) return;
    point p(impl_->axes.size(), 0);
    detail::walk(*impl_, impl_->counts(), 0, p, f);
}

} // namespace ktune::tune
