// Rank-based statistics of timing samples; see include/ktune/measure/sample_stats.hpp.
#include "ktune/measure/sample_stats.hpp"

#include "ktune/core/error.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

namespace ktune::measure {
namespace {

void require_nonempty(std::span<const double> s, const char* what) {
    if (s.empty()) throw error(error_kind::input, std::string(what) + ": no samples");
}

} // namespace

std::vector<double> sorted_finite(std::span<const double> samples) {
    std::vector<double> v(samples.begin(), samples.end());
    for (std::size_t i = 0; i < v.size(); ++i)
        if (!std::isfinite(v[i]))
            throw error(error_kind::input, "sample " + std::to_string(i) +
                                               " is not a finite number; drop failed "
                                               "measurements before computing statistics");
    std::sort(v.begin(), v.end());
    return v;
}

double quantile_sorted(std::span<const double> sorted, double p) {
    require_nonempty(sorted, "quantile");
    if (!(p >= 0.0 && p <= 1.0))
        throw error(error_kind::input, "quantile: p = " + std::to_string(p) + " is outside [0, 1]");
    const double h = static_cast<double>(sorted.size() - 1) * p;
    const auto lo = static_cast<std::size_t>(std::floor(h));
    if (lo + 1 >= sorted.size()) return sorted.back();
    return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[lo + 1] - sorted[lo]);
}

double median(std::span<const double> samples) {
    require_nonempty(samples, "median");
    std::vector<double> v(samples.begin(), samples.end());
    return median_inplace(v);
}

double median_inplace(std::span<double> v) {
    require_nonempty(v, "median");
    const std::size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
    const double upper = v[mid];
    if (v.size() % 2 == 1) return upper;
    // The largest element of the lower half is the other middle value.
    const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
    return lower + (upper - lower) / 2;
}

double mad(std::span<const double> samples) {
    const double m = median(samples);
    std::vector<double> dev(samples.size());
    std::transform(samples.begin(), samples.end(), dev.begin(),
                   [m](double x) { return std::abs(x - m); });
    return median(dev);
}

median_interval median_ci_sorted(std::span<const double> sorted, double confidence) {
    require_nonempty(sorted, "median confidence interval");
    if (!(confidence > 0.0 && confidence < 1.0))
        throw error(error_kind::input,
                    "confidence " + std::to_string(confidence) + " must lie strictly in (0, 1)");
    const std::size_t n = sorted.size();
    const double tail = (1.0 - confidence) / 2.0;
    // Accumulate P(B <= k) for B ~ Binomial(n, 1/2) in log space (2^-n underflows for n > 1074)
    // and keep the largest j = k + 1 whose two tails stay within 1 - confidence.
    const double log_half_n = static_cast<double>(n) * std::log(0.5);
    const double lg_n1 = std::lgamma(static_cast<double>(n) + 1.0);
    double cdf = 0;
    std::size_t j = 0; // 1-based order statistic; 0 = none reaches the confidence
    double tail_at_j = 0.5;
    for (std::size_t k = 0; k < (n + 1) / 2; ++k) {
        const double kd = static_cast<double>(k);
        cdf += std::exp(lg_n1 - std::lgamma(kd + 1.0) -
                        std::lgamma(static_cast<double>(n) - kd + 1.0) + log_half_n);
        if (cdf > tail) break;
        j = k + 1;
        tail_at_j = cdf;
    }
    median_interval ci;
    if (j == 0) { // too few samples for this confidence: the whole range is the best we have
        ci.lo_rank = 0;
        ci.hi_rank = n - 1;
        ci.coverage =
            n >= 2 ? 1.0 - std::ldexp(1.0, 1 - static_cast<int>(std::min<std::size_t>(n, 1000)))
                   : 0.0;
    } else {
        ci.lo_rank = j - 1;
        ci.hi_rank = n - j;
        ci.coverage = 1.0 - 2.0 * tail_at_j;
    }
    ci.lo = sorted[ci.lo_rank];
    ci.hi = sorted[ci.hi_rank];
    return ci;
}

double sample_summary::median_ci_rel_halfwidth() const {
    if (median == 0) return std::numeric_limits<double>::infinity();
    return (median_ci.hi - median_ci.lo) / 2.0 / std::abs(median);
}

sample_summary summarize(std::span<const double> samples, double confidence) {
    require_nonempty(samples, "summary");
    const std::vector<double> v = sorted_finite(samples);
    sample_summary s;
    s.n = v.size();
    s.min = v.front();
    s.max = v.back();
    s.q1 = quantile_sorted(v, 0.25);
    s.median = quantile_sorted(v, 0.5);
    s.q3 = quantile_sorted(v, 0.75);
    s.iqr = s.q3 - s.q1;
    s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    s.mad = mad(v);
    s.median_ci = median_ci_sorted(v, confidence);
    return s;
}

} // namespace ktune::measure
