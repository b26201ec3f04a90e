// Two-sample statistics of the regression gate; see include/ktune/guard/stats.hpp.
#include "ktune/guard/stats.hpp"

#include "guard/hl_select.hpp"

#include "ktune/core/error.hpp"
#include "ktune/measure/sample_stats.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <string>
#include <utility>

namespace ktune::guard {
namespace {

constexpr std::size_t exact_max_pairs = 2500;
// Bootstrap replicates of big samples use this many order statistics a side: the interval is
// then that of 200 samples, wider than the full sample's (conservative) at bounded cost.
constexpr std::size_t bootstrap_thin_to = 200;
constexpr std::size_t table_max_pairs = 4096;

void require_samples(std::span<const double> s, const char* which) {
    if (s.empty()) throw error(error_kind::input, std::string(which) + " sample is empty");
    for (double v : s)
        if (!std::isfinite(v))
            throw error(error_kind::input, std::string(which) + " sample holds a non-finite value");
}

// Survival function P(U >= u) of the null distribution of U for sample sizes (m, n), m <= n,
// as a table over u = 0 .. m*n. Counts follow f(m,n,u) = f(m-1,n,u-n) + f(m,n-1,u), rolled over
// n in place. Counts reach C(m+n, m) < 1e300 for m*n <= 2500, fine in double. Tables are cached
// because a suite compares many keys of the same sample sizes.
const std::vector<double>& exact_survival(std::size_t m, std::size_t n) {
    static std::mutex mu;
    static std::map<std::pair<std::size_t, std::size_t>, std::vector<double>> cache;
    std::lock_guard lock(mu);
    auto [it, fresh] = cache.try_emplace({m, n});
    if (!fresh) return it->second;
    const std::size_t len = m * n + 1;
    std::vector<std::vector<double>> f(m + 1, std::vector<double>(len, 0.0));
    for (auto& row : f)
        row[0] = 1.0; // n' = 0: only U = 0
    for (std::size_t np = 1; np <= n; ++np)
        for (std::size_t mp = 1; mp <= m; ++mp) {
            auto& cur = f[mp];
            const auto& prev = f[mp - 1]; // already holds n' (rolled forward above)
            for (std::size_t u = mp * np; u >= np; --u)
                cur[u] += prev[u - np];
        }
    const auto& counts = f[m];
    std::vector<double> sf(len + 1, 0.0);
    for (std::size_t u = len; u-- > 0;)
        sf[u] = sf[u + 1] + counts[u];
    const double total = sf[0];
    for (auto& v : sf)
        v /= total;
    it->second = std::move(sf);
    return it->second;
}

std::vector<double> thin(std::span<const double> s, std::size_t to) {
    std::vector<double> sorted(s.begin(), s.end());
    std::sort(sorted.begin(), sorted.end());
    if (sorted.size() <= to) return sorted;
    std::vector<double> out(to);
    const double step = static_cast<double>(sorted.size() - 1) / static_cast<double>(to - 1);
    for (std::size_t i = 0; i < to; ++i)
        out[i] = sorted[static_cast<std::size_t>(std::llround(static_cast<double>(i) * step))];
    return out;
}

} // namespace

mwu_result mann_whitney_u(std::span<const double> x, std::span<const double> y, mwu_method method) {
    require_samples(x, "first");
    require_samples(y, "second");
    const std::size_t n1 = x.size(), n2 = y.size(), n = n1 + n2;
    // Mid-ranks of the pooled sample, and the tie term sum(t^3 - t) over tie groups.
    std::vector<std::pair<double, bool>> pooled; // value, from x
    pooled.reserve(n);
    for (double v : x)
        pooled.emplace_back(v, true);
    for (double v : y)
        pooled.emplace_back(v, false);
    std::sort(pooled.begin(), pooled.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    double r1 = 0, tie_term = 0;
    for (std::size_t i = 0; i < n;) {
        std::size_t j = i;
        while (j < n && pooled[j].first == pooled[i].first)
            ++j;
        const double t = static_cast<double>(j - i);
        const double mid_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
        for (std::size_t k = i; k < j; ++k)
            if (pooled[k].second) r1 += mid_rank;
        tie_term += t * t * t - t;
        i = j;
    }
    mwu_result r;
    const double d1 = static_cast<double>(n1), d2 = static_cast<double>(n2);
    r.u1 = r1 - d1 * (d1 + 1) / 2;
    const double u = std::max(r.u1, d1 * d2 - r.u1);
    const bool ties = tie_term > 0;
    if (method == mwu_method::exact && ties)
        throw error(error_kind::input, "exact Mann-Whitney U needs samples without ties");
    r.exact = method == mwu_method::exact ||
              (method == mwu_method::automatic && !ties && n1 * n2 <= exact_max_pairs);
    if (r.exact) {
        const auto& sf = exact_survival(std::min(n1, n2), std::max(n1, n2));
        r.p_value = std::min(1.0, 2.0 * sf[static_cast<std::size_t>(std::llround(u))]);
        return r;
    }
    const double dn = static_cast<double>(n);
    const double var = d1 * d2 / 12.0 * ((dn + 1) - tie_term / (dn * (dn - 1)));
    if (var <= 0) { // every value equal: no evidence of any difference
        r.p_value = 1;
        return r;
    }
    const double z = (u - d1 * d2 / 2 - 0.5) / std::sqrt(var);
    r.p_value = std::clamp(std::erfc(z / std::sqrt(2.0)), 0.0, 1.0);
    return r;
}

double hodges_lehmann(std::span<const double> x, std::span<const double> y) {
    require_samples(x, "first");
    require_samples(y, "second");
    std::vector<double> xs(x.begin(), x.end()), ys(y.begin(), y.end());
    std::sort(xs.begin(), xs.end());
    std::sort(ys.begin(), ys.end());
    detail::hl_workspace ws;
    return detail::weighted_hl(xs, {}, ys, {}, ws);
}

relative_shift_result relative_shift(std::span<const double> x, std::span<const double> y,
                                     const shift_options& o) {
    require_samples(x, "baseline");
    require_samples(y, "candidate");
    if (!(o.confidence > 0 && o.confidence < 1) || o.resamples < 10)
        throw error(error_kind::usage,
                    "bootstrap needs a confidence in (0, 1) and at least 10 resamples");
    relative_shift_result r;
    r.base_median = measure::median(x);
    r.shift = hodges_lehmann(x, y);
    if (r.base_median == 0)
        throw error(error_kind::input, "baseline median is 0: a relative shift is undefined");
    r.rel = r.shift / r.base_median;

    // Replicates of big samples run on thinned ones, so each has bounded cost. A replicate is
    // its multiplicities over the sorted originals (same draws, same order as drawing the
    // values), so the HL and median of a replicate are weighted selections: no n^2 buffer.
    const std::vector<double> xs = thin(x, bootstrap_thin_to), ys = thin(y, bootstrap_thin_to);
    std::vector<std::uint64_t> cx(xs.size()), cy(ys.size());
    detail::hl_workspace ws;
    // Small samples (the usual 30 a side): all differences sorted once, then each replicate's
    // median is one walk. Larger ones: selection per replicate.
    std::optional<detail::pair_table> table;
    if (xs.size() * ys.size() <= table_max_pairs) table.emplace(xs, ys);
    splitmix64 rng(o.seed);
    std::vector<double> reps;
    reps.reserve(static_cast<std::size_t>(o.resamples));
    for (int b = 0; b < o.resamples; ++b) {
        std::fill(cx.begin(), cx.end(), 0);
        std::fill(cy.begin(), cy.end(), 0);
        for (std::size_t i = 0; i < xs.size(); ++i)
            ++cx[rng.below(xs.size())];
        for (std::size_t i = 0; i < ys.size(); ++i)
            ++cy[rng.below(ys.size())];
        const double hl =
            table ? table->weighted_median(cx, cy) : detail::weighted_hl(xs, cx, ys, cy, ws);
        const double m = detail::weighted_median(xs, cx);
        if (m != 0) reps.push_back(hl / m);
    }
    std::sort(reps.begin(), reps.end());
    const double tail = (1 - o.confidence) / 2;
    r.rel_lo = measure::quantile_sorted(reps, tail);
    r.rel_hi = measure::quantile_sorted(reps, 1 - tail);
    return r;
}

std::vector<double> benjamini_hochberg(std::span<const double> p, std::span<const double> w) {
    const std::size_t m = p.size();
    if (!w.empty() && w.size() != m)
        throw error(error_kind::usage, "benjamini_hochberg: one weight per p-value");
    std::vector<double> adj(m);
    double wsum = 0;
    for (std::size_t i = 0; i < m; ++i) {
        const double wi = w.empty() ? 1.0 : w[i];
        if (!(wi > 0) || !std::isfinite(wi))
            throw error(error_kind::usage, "benjamini_hochberg: weights must be positive");
        wsum += wi;
    }
    for (std::size_t i = 0; i < m; ++i) {
        if (!(p[i] >= 0 && p[i] <= 1))
            throw error(error_kind::input, "benjamini_hochberg: p-value outside [0, 1]");
        const double wi = (w.empty() ? 1.0 : w[i]) * static_cast<double>(m) / wsum;
        adj[i] = std::min(1.0, p[i] / wi);
    }
    std::vector<std::size_t> order(m);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return adj[a] < adj[b]; });
    std::vector<double> q(m);
    double running = 1.0;
    for (std::size_t k = m; k-- > 0;) {
        const std::size_t i = order[k];
        running = std::min(running, adj[i] * static_cast<double>(m) / static_cast<double>(k + 1));
        q[i] = running;
    }
    return q;
}

} // namespace ktune::guard
