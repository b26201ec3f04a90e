// Shared strategy pieces: unseen sampling, mutation, repair and model features.
#include "tune/strategy_util.hpp"

#include <algorithm>
#include <cmath>

namespace ktune::tune::detail {

void unseen_sampler::draw(const space& s, rng& r, std::size_t n, std::vector<point>& out,
                          const std::function<bool(const point&)>& seen) {
    const std::uint64_t total = s.valid_count();
    while (n > 0 && !listed_) {
        bool found = false;
        for (int attempt = 0; attempt < 64 && !found; ++attempt) {
            point p = s.sample(r);
            if (seen(p) || std::find(out.begin(), out.end(), p) != out.end()) continue;
            out.push_back(std::move(p));
            found = true;
        }
        if (found) {
            --n;
            continue;
        }
        if (total > 50'000'000) return; // collisions this often only happen in small spaces
        listed_ = true;
        s.for_each_valid([&](const point& p) {
            if (!seen(p)) rest_.push_back(p);
            return true;
        });
        for (std::size_t i = rest_.size(); i > 1; --i)
            std::swap(rest_[i - 1], rest_[r.below(i)]);
    }
    while (n > 0 && !rest_.empty()) {
        if (!seen(rest_.back())) {
            out.push_back(std::move(rest_.back()));
            --n;
        }
        rest_.pop_back();
    }
}

point mutate(const space& s, const point& p, rng& r, double rate) {
    point q = p;
    const auto& axes = s.axes();
    std::vector<std::size_t> movable;
    for (std::size_t a = 0; a < axes.size(); ++a)
        if (axes[a].values.size() > 1) movable.push_back(a);
    if (movable.empty()) return q;
    const std::size_t forced = movable[r.below(movable.size())];
    for (auto a : movable) {
        if (a != forced && r.uniform() >= rate) continue;
        const auto n = static_cast<std::uint32_t>(axes[a].values.size());
        if (axes[a].ordered() && r.uniform() < 0.7) { // mostly a step: ordered axes are smooth
            if (q[a] == 0)
                q[a] = 1;
            else if (q[a] + 1 == n)
                q[a] = n - 2;
            else
                q[a] += r.below(2) ? 1 : static_cast<std::uint32_t>(-1);
        } else {
            auto v = static_cast<std::uint32_t>(r.below(n - 1));
            q[a] = v >= q[a] ? v + 1 : v;
        }
    }
    return q;
}

point repair(const space& s, point p, rng& r) {
    if (s.is_valid(p)) return p;
    const auto& axes = s.axes();
    for (int attempt = 0; attempt < 32; ++attempt) {
        point q = p;
        const std::size_t a = r.below(axes.size());
        q[a] = static_cast<std::uint32_t>(r.below(axes[a].values.size()));
        if (s.is_valid(q)) return q;
        if (attempt % 4 == 3) p = q; // wander a little further from an invalid corner
    }
    return s.sample(r);
}

std::vector<float> features(const space& s, const point& p) {
    std::vector<float> f;
    const auto& axes = s.axes();
    f.reserve(axes.size());
    for (std::size_t a = 0; a < axes.size(); ++a) {
        const auto& ax = axes[a];
        double v = ax.number(p[a]);
        if (ax.kind != axis_kind::enumeration && ax.kind != axis_kind::boolean) {
            double lo = ax.number(0), hi = lo;
            for (std::size_t i = 1; i < ax.values.size(); ++i) {
                lo = std::min(lo, ax.number(i));
                hi = std::max(hi, ax.number(i));
            }
            if (ax.kind == axis_kind::pow2 || (lo > 0 && hi / lo >= 8)) v = std::log2(v);
        }
        f.push_back(static_cast<float>(v));
    }
    return f;
}

} // namespace ktune::tune::detail
