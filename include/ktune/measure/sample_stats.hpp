#pragma once
// Basic statistics of timing samples: median, quantiles, IQR, MAD and a distribution-free
// confidence interval of the median. Timing distributions on a GPU are skewed and often
// multi-modal (clock steps, cache state, co-tenants), so everything here is rank-based: no mean
// or standard deviation is needed to judge a measurement.
//
//   std::vector<double> t = time_it(...);
//   auto s = ktune::measure::summarize(t);                 // 95 % CI of the median
//   if (s.median_ci_rel_halfwidth() < 0.01) stop_sampling();

#include <cstddef>
#include <span>
#include <vector>

namespace ktune::measure {

/// Quantile p in [0, 1] of samples that are already sorted ascending, linearly interpolated
/// between order statistics (Hyndman & Fan type 7: numpy's and R's default). Throws
/// ktune::error(input) on an empty span or p outside [0, 1].
double quantile_sorted(std::span<const double> sorted, double p);

/// Median of unsorted samples (copies; the input is left as is). Throws on an empty span.
double median(std::span<const double> samples);

/// The same median, computed in place (reorders `samples`): for hot loops such as bootstraps,
/// where a copy per call would dominate.
double median_inplace(std::span<double> samples);

/// Median absolute deviation from the median, unscaled (multiply by 1.4826 for a normal sigma).
double mad(std::span<const double> samples);

/// A confidence interval of the median given by two order statistics (0-based ranks into the
/// sorted samples) and the coverage it actually has: binomial coverage is discrete, so it is
/// the smallest achievable coverage >= the requested one, or the whole range (and its lower
/// coverage 1 - 2^(1-n)) when n is too small to reach it.
struct median_interval {
    double lo = 0;
    double hi = 0;
    std::size_t lo_rank = 0;
    std::size_t hi_rank = 0;
    double coverage = 0;
    bool operator==(const median_interval&) const = default;
};

/// Distribution-free CI of the median of sorted samples by order statistics: P(x_(j) <= m <=
/// x_(n+1-j)) = 1 - 2 P(Binomial(n, 1/2) <= j - 1). Valid for any continuous distribution.
median_interval median_ci_sorted(std::span<const double> sorted, double confidence = 0.95);

/// Summary of one set of samples. Value type; `summarize` fills it.
struct sample_summary {
    std::size_t n = 0;
    double min = 0;
    double q1 = 0; ///< 25 % quantile (type 7)
    double median = 0;
    double q3 = 0; ///< 75 % quantile (type 7)
    double max = 0;
    double mean = 0;
    double iqr = 0; ///< q3 - q1
    double mad = 0; ///< unscaled median absolute deviation
    median_interval median_ci;
    /// Half the width of the median's CI relative to the median (0.01 = +-1 %); the stopping
    /// criterion of the measurement protocol. Infinity when the median is 0.
    [[nodiscard]] double median_ci_rel_halfwidth() const;
    bool operator==(const sample_summary&) const = default;
};

/// Summary of unsorted samples with a `confidence` CI of the median. Throws ktune::error(input)
/// on an empty span or a non-finite sample (a NaN would silently corrupt every rank).
sample_summary summarize(std::span<const double> samples, double confidence = 0.95);

/// Sorted copy of samples; throws ktune::error(input) if any is not finite.
std::vector<double> sorted_finite(std::span<const double> samples);

} // namespace ktune::measure
