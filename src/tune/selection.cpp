// Tie-aware selection: distribution-free median intervals and a deterministic tie break.
#include "ktune/tune/selection.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace ktune::tune {
namespace {

// Two-sided normal quantile for `confidence` by bisection on erfc (no table, any level).
double z_for(double confidence) {
    const double alpha = 1.0 - confidence;
    double lo = 0, hi = 10;
    for (int i = 0; i < 100; ++i) {
        const double mid = 0.5 * (lo + hi);
        if (std::erfc(mid / std::sqrt(2.0)) > alpha)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

// Largest j ≥ 0 with P(Binomial(n, 1/2) < j) ≤ alpha/2: the median lies in [x_(j), x_(n+1-j)]
// (1-based order statistics) with probability ≥ confidence.
std::size_t lower_rank(std::size_t n, double confidence) {
    const double half_alpha = (1.0 - confidence) / 2;
    if (n > 200) { // normal approximation, exact enough at this size
        const double j = std::floor(n / 2.0 - z_for(confidence) * std::sqrt(double(n)) / 2.0);
        return j < 0 ? 0 : static_cast<std::size_t>(j);
    }
    double pmf = std::pow(0.5, static_cast<double>(n)); // P(B = 0)
    double cdf = 0;                                     // P(B < j)
    std::size_t j = 0;
    for (std::size_t i = 0; i <= n; ++i) {
        if (cdf + pmf > half_alpha) break;
        cdf += pmf;
        j = i + 1;
        pmf *= static_cast<double>(n - i) / static_cast<double>(i + 1);
    }
    return j;
}

} // namespace

std::optional<median_ci> median_confidence(std::vector<double> s, double confidence) {
    if (s.empty()) return std::nullopt;
    std::sort(s.begin(), s.end());
    const std::size_t n = s.size();
    median_ci ci;
    ci.median = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    const std::size_t j = lower_rank(n, confidence);
    if (j == 0) {
        ci.lo = s.front();
        ci.hi = s.back();
    } else {
        ci.lo = s[j - 1];
        ci.hi = s[n - j];
    }
    return ci;
}

median_ci interval_of(const observation& o) {
    if (auto ci = median_confidence(o.samples)) {
        // The recorded time is the objective the search used; keep it as the centre so
        // selection agrees with the search when samples and time differ (e.g. mean vs median).
        return {o.time, std::min(ci->lo, o.time), std::max(ci->hi, o.time)};
    }
    return {o.time, o.time, o.time};
}

std::optional<selection> select_best(const std::vector<observation>& history, const space& s) {
    std::vector<std::size_t> ok;
    for (std::size_t i = 0; i < history.size(); ++i)
        if (history[i].ok()) ok.push_back(i);
    if (ok.empty()) return std::nullopt;
    std::vector<median_ci> ci(history.size());
    std::vector<std::string> names(history.size());
    for (auto i : ok) {
        ci[i] = interval_of(history[i]);
        names[i] = s.to_config(history[i].where).to_string();
    }
    const auto rank = [&](std::size_t i) { return std::tie(ci[i].median, ci[i].hi, names[i]); };
    const std::size_t best =
        *std::min_element(ok.begin(), ok.end(), [&](auto a, auto b) { return rank(a) < rank(b); });
    selection sel{best, {}};
    for (auto i : ok)
        if (ci[i].lo <= ci[best].hi && ci[best].lo <= ci[i].hi) sel.tied.push_back(i);
    return sel;
}

} // namespace ktune::tune
