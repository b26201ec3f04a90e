#pragma once
// Choosing the winner when measurements are noisy. Two configs whose median confidence
// intervals overlap are tied; a tie is broken deterministically (lower median, then lower upper
// bound, then the canonical config string), so the same data always gives the same winner.
//
//   auto sel = ktune::tune::select_best(history, space);
//   if (sel && sel->tied.size() > 1) …   // say "3 configs tie within noise"

#include "ktune/tune/searcher.hpp"

#include <optional>
#include <vector>

namespace ktune::tune {

/// Distribution-free confidence interval of the median (binomial order statistics).
struct median_ci {
    double median = 0;
    double lo = 0;
    double hi = 0;
    bool operator==(const median_ci&) const = default;
};
/// With too few samples for the confidence asked (fewer than 6 at 95 %) the interval is the
/// sample's full range: wide, so such configs tie rather than win on noise. Empty: nullopt.
std::optional<median_ci> median_confidence(std::vector<double> samples, double confidence = 0.95);

/// The interval of an observation: from its samples, else its time as a point interval.
median_ci interval_of(const observation& o);

struct selection {
    std::size_t best = 0;          ///< index into the history
    std::vector<std::size_t> tied; ///< indices tied with the best (best included), sorted
    bool operator==(const selection&) const = default;
};

/// The tie-aware best of the ok observations; nullopt when none succeeded.
std::optional<selection> select_best(const std::vector<observation>& history, const space& s);

} // namespace ktune::tune
