// TPE proposal rule and the space-filling pick (strategy_tpe.hpp).
#include "tune/strategy_tpe.hpp"

#include "tune/strategy_util.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ktune::tune::detail {
namespace {

constexpr double gamma_fraction = 0.15; ///< TPE's usual 10–25 %: the top configs are "good"
constexpr std::size_t draws = 24;       ///< candidates drawn from l(x), the best l/g measured

/// Per-axis Parzen densities: each observed value adds 1 at its index and 0.5 at the adjacent
/// indices of an ordered axis (tiles and block sizes are locally smooth), on top of a uniform
/// prior of total weight 1 so an unseen value keeps a non-zero chance.
std::vector<std::vector<double>> density(const space& s, const std::vector<const point*>& pts) {
    const auto& axes = s.axes();
    std::vector<std::vector<double>> d(axes.size());
    for (std::size_t a = 0; a < axes.size(); ++a) {
        const std::size_t n = axes[a].values.size();
        d[a].assign(n, 1.0 / static_cast<double>(n));
        for (const point* p : pts) {
            const std::size_t i = (*p)[a];
            d[a][i] += 1.0;
            if (axes[a].ordered()) {
                if (i > 0) d[a][i - 1] += 0.5;
                if (i + 1 < n) d[a][i + 1] += 0.5;
            }
        }
        double total = 0;
        for (double w : d[a])
            total += w;
        for (double& w : d[a])
            w /= total;
    }
    return d;
}

std::uint32_t draw_index(const std::vector<double>& w, rng& r) {
    double u = r.uniform();
    for (std::size_t i = 0; i + 1 < w.size(); ++i) {
        if (u < w[i]) return static_cast<std::uint32_t>(i);
        u -= w[i];
    }
    return static_cast<std::uint32_t>(w.size() - 1);
}

} // namespace

std::optional<point> propose_tpe(const space& s,
                                 const std::vector<std::pair<double, point>>& ranked,
                                 const std::vector<point>& failed, rng& r,
                                 const std::function<bool(const point&)>& taken) {
    if (ranked.size() < 2) return std::nullopt;
    const auto good_n = std::max<std::size_t>(
        1,
        static_cast<std::size_t>(std::ceil(gamma_fraction * static_cast<double>(ranked.size()))));
    std::vector<const point*> good, rest;
    for (std::size_t i = 0; i < ranked.size(); ++i)
        (i < good_n ? good : rest).push_back(&ranked[i].second);
    for (const auto& p : failed)
        rest.push_back(&p);
    const auto l = density(s, good);
    const auto g = density(s, rest);
    const std::size_t axes = s.axes().size();
    std::optional<point> pick;
    double pick_score = -std::numeric_limits<double>::infinity();
    for (std::size_t k = 0, attempts = 0; k < draws && attempts < 8 * draws; ++attempts) {
        point p(axes);
        for (std::size_t a = 0; a < axes; ++a)
            p[a] = draw_index(l[a], r);
        // Invalid draws are repaired (a few single-axis changes), which moves them off l(x) a
        // little; scoring below still uses the repaired point, so the ranking stays honest.
        p = repair(s, std::move(p), r);
        if (taken(p)) continue;
        ++k;
        double score = 0;
        for (std::size_t a = 0; a < axes; ++a)
            score += std::log(l[a][p[a]]) - std::log(g[a][p[a]]);
        if (score > pick_score) {
            pick_score = score;
            pick = std::move(p);
        }
    }
    return pick;
}

std::size_t farthest(const space& s, const std::vector<point>& candidates,
                     const std::vector<point>& measured) {
    const auto& axes = s.axes();
    std::size_t best = 0;
    double best_d = -1;
    for (std::size_t c = 0; c < candidates.size(); ++c) {
        double nearest = std::numeric_limits<double>::infinity();
        for (const auto& m : measured) {
            double d = 0;
            for (std::size_t a = 0; a < axes.size(); ++a) {
                const auto n = static_cast<double>(axes[a].values.size());
                const auto i = static_cast<double>(candidates[c][a]);
                const auto j = static_cast<double>(m[a]);
                d += axes[a].ordered() ? (n > 1 ? std::abs(i - j) / (n - 1) : 0.0) : (i != j);
            }
            nearest = std::min(nearest, d);
        }
        if (nearest > best_d) {
            best_d = nearest;
            best = c;
        }
    }
    return best;
}

} // namespace ktune::tune::detail
