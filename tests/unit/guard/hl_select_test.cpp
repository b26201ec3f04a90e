// The selection-based Hodges–Lehmann and bootstrap give exactly (bit for bit) what the former
// materialise-every-difference implementation gave, so no verdict or interval moves.
#include "catch.hpp"

#include "guard/hl_select.hpp"
#include "ktune/guard/compare.hpp"
#include "ktune/guard/stats.hpp"
#include "ktune/measure/sample_stats.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

using namespace ktune::guard;

namespace {

// The former implementation, kept here as the reference: every y_j - x_i, then the median.
double naive_hl(const std::vector<double>& x, const std::vector<double>& y) {
    std::vector<double> d;
    for (double yj : y)
        for (double xi : x)
            d.push_back(yj - xi);
    return ktune::measure::median_inplace(d);
}

// The former bootstrap of relative_shift (same draws: x's then y's, from sorted samples).
std::pair<double, double> naive_ci(std::vector<double> x, std::vector<double> y, int resamples,
                                   std::uint64_t seed) {
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    splitmix64 rng(seed);
    std::vector<double> reps, bx(x.size()), by(y.size());
    for (int b = 0; b < resamples; ++b) {
        for (auto& v : bx)
            v = x[rng.below(x.size())];
        for (auto& v : by)
            v = y[rng.below(y.size())];
        const double hl = naive_hl(bx, by);
        const double m = ktune::measure::median_inplace(bx);
        if (m != 0) reps.push_back(hl / m);
    }
    std::sort(reps.begin(), reps.end());
    const double tail = (1 - 0.95) / 2; // as relative_shift computes it, rounding included
    return {ktune::measure::quantile_sorted(reps, tail),
            ktune::measure::quantile_sorted(reps, 1 - tail)};
}

// GPU-like samples: a floor, a skewed tail, a slow mode, and ties from a coarse timer.
std::vector<double> draw(splitmix64& rng, std::size_t n, double median, double tick) {
    std::vector<double> v(n);
    for (auto& s : v) {
        double t = median * (1 + 0.01 * std::exp(0.8 * (rng.uniform() - 0.5) * 3));
        if (rng.uniform() < 0.2) t *= 1.06;
        s = tick > 0 ? std::round(t / tick) * tick : t;
    }
    return v;
}

} // namespace

TEST_CASE("selection HL equals the materialised median, bit for bit") {
    splitmix64 rng(11);
    for (int trial = 0; trial < 300; ++trial) {
        const std::size_t nx = 1 + rng.below(70), ny = 1 + rng.below(70);
        const double tick = trial % 3 == 0 ? 0.5 : 0; // a third with many ties
        auto x = draw(rng, nx, 100, tick), y = draw(rng, ny, 100 + rng.uniform() * 8, tick);
        INFO("trial " << trial << " nx " << nx << " ny " << ny);
        REQUIRE(hodges_lehmann(x, y) == naive_hl(x, y));

        // Weighted: multiplicities stand for repeated values.
        std::sort(x.begin(), x.end());
        std::sort(y.begin(), y.end());
        std::vector<std::uint64_t> wx(nx), wy(ny);
        std::vector<double> ex, ey;
        for (std::size_t i = 0; i < nx; ++i)
            ex.insert(ex.end(), wx[i] = rng.below(4), x[i]);
        for (std::size_t j = 0; j < ny; ++j)
            ey.insert(ey.end(), wy[j] = rng.below(4), y[j]);
        if (ex.empty() || ey.empty()) continue;
        detail::hl_workspace ws;
        REQUIRE(detail::weighted_hl(x, wx, y, wy, ws) == naive_hl(ex, ey));
        REQUIRE(detail::pair_table(x, y).weighted_median(wx, wy) == naive_hl(ex, ey));
        REQUIRE(detail::weighted_median(x, wx) == ktune::measure::median(ex));
    }
}

TEST_CASE("bootstrap interval and verdicts unchanged on fixed inputs") {
    splitmix64 rng(2026);
    for (int trial = 0; trial < 12; ++trial) {
        const std::size_t n = trial % 2 ? 30 : 17 + trial;
        const double shift = 1 + 0.01 * trial;
        const auto x = draw(rng, n, 50, trial % 4 == 0 ? 0.25 : 0);
        const auto y = draw(rng, n + trial % 3, 50 * shift, trial % 4 == 0 ? 0.25 : 0);
        const auto r = relative_shift(x, y, {.confidence = 0.95, .resamples = 300, .seed = 5});
        const auto [lo, hi] = naive_ci(x, y, 300, 5);
        INFO("trial " << trial);
        CHECK(r.rel_lo == lo);
        CHECK(r.rel_hi == hi);
        CHECK(r.shift == naive_hl(x, y));
    }
    // A fixed 200-key comparison: every key's interval is the former implementation's, so
    // the verdicts (a function of q, lo and hi) are the former ones; 20 slowed keys found.
    series_set base, cand;
    for (int k = 0; k < 200; ++k) {
        series sb, sc;
        sb.name = sc.name = "k" + std::to_string(k);
        sb.samples = draw(rng, 30, 1000, 0);
        sc.samples = draw(rng, 30, 1000, 0);
        if (k < 20)
            for (auto& v : sc.samples)
                v *= 1.05;
        base.items.push_back(sb);
        cand.items.push_back(sc);
    }
    const diff_options o;
    const auto d = compare(base, cand, o);
    REQUIRE(d.keys.size() == 200);
    for (const auto& k : d.keys) {
        if (std::stoi(k.name.substr(1)) % 4 != 0) continue; // a quarter: the reference is slow
        const auto& b = base.items[static_cast<std::size_t>(std::stoi(k.name.substr(1)))];
        const auto& c = cand.items[static_cast<std::size_t>(std::stoi(k.name.substr(1)))];
        std::uint64_t h = 0xcbf29ce484222325ULL; // compare's per-key seed: o.seed ^ fnv1a(key)
        for (unsigned char ch : k.key)
            h = (h ^ ch) * 0x100000001b3ULL;
        const auto [lo, hi] = naive_ci(b.samples, c.samples, o.resamples, o.seed ^ h);
        INFO(k.key);
        CHECK(k.rel_lo == lo);
        CHECK(k.rel_hi == hi);
    }
    CHECK(d.count(verdict::slower) >= 18);
    CHECK(d.count(verdict::faster) == 0);
    CHECK(d.count(verdict::same) >= 178);
}
