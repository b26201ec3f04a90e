#pragma once
// Two-sample statistics of the regression gate: Mann–Whitney U, the Hodges–Lehmann shift with
// a seeded bootstrap CI, and Benjamini–Hochberg control across keys. Rank-based throughout,
// because GPU timings are skewed and multi-modal; nothing here assumes normal noise.
//
//   auto t = ktune::guard::mann_whitney_u(base, cand);          // t.p_value, two-sided
//   auto s = ktune::guard::relative_shift(base, cand, {.seed = 7});  // s.rel in [s.rel_lo,
//   s.rel_hi] auto q = ktune::guard::benjamini_hochberg(p_values);

#include "ktune/core/rng.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace ktune::guard {

enum class mwu_method {
    automatic,  ///< exact without ties when n1 * n2 <= 2500, else asymptotic
    exact,      ///< exact null distribution of U (throws if the samples have ties)
    asymptotic, ///< normal approximation with tie correction and continuity correction
};

struct mwu_result {
    double u1 = 0;      ///< U of the first sample: pairs x > y, ties counting 1/2 (scipy's U1)
    double p_value = 1; ///< two-sided
    bool exact = false; ///< which method produced p_value
    bool operator==(const mwu_result&) const = default;
};

/// Two-sided Mann–Whitney U test of x against y, as scipy.stats.mannwhitneyu(x, y,
/// use_continuity=True, alternative="two-sided"). Throws ktune::error(input) on an empty or
/// non-finite sample.
mwu_result mann_whitney_u(std::span<const double> x, std::span<const double> y,
                          mwu_method method = mwu_method::automatic);

/// Hodges–Lehmann estimate of the shift of y relative to x: the median of all y_j - x_i.
/// Exact at any size: a selection in the sorted matrix of differences, O((m + n) log(m n))
/// expected, never materialising the m n differences.
double hodges_lehmann(std::span<const double> x, std::span<const double> y);

struct shift_options {
    double confidence = 0.95; ///< of the percentile bootstrap interval
    int resamples = 1000;     ///< bootstrap replicates
    std::uint64_t seed = 1;   ///< same seed, same samples → same interval, on every platform
};

/// The shift of y relative to x as a fraction of x's median: rel = HL(x, y) / median(x), with
/// a percentile bootstrap CI (both samples resampled independently). 0.05 = y is 5 % slower.
struct relative_shift_result {
    double shift = 0;       ///< HL shift, in the samples' unit
    double base_median = 0; ///< median of x
    double rel = 0;
    double rel_lo = 0;
    double rel_hi = 0;
    bool operator==(const relative_shift_result&) const = default;
};
relative_shift_result relative_shift(std::span<const double> x, std::span<const double> y,
                                     const shift_options& options = {});

/// Benjamini–Hochberg adjusted p-values (q-values), in input order: reject H_i at FDR level a
/// iff q_i <= a. With weights (one per p, positive; normalised to mean 1) this is the weighted
/// procedure of Genovese, Roeder & Wasserman (2006): p_i / w_i enters the step-up, so a key
/// with more weight needs less evidence. Empty weights = all 1.
std::vector<double> benjamini_hochberg(std::span<const double> p_values,
                                       std::span<const double> weights = {});

/// The bootstrap's generator (ktune/core/rng.hpp): the same interval for the same seed on every
/// standard library.
using ktune::splitmix64;

} // namespace ktune::guard
