#pragma once
// The Hodges–Lehmann median of pairwise differences without materialising them: selection in
// the sorted matrix X + Y (rows y_j ascending, columns x_i descending, so y_j - x_i grows along
// both), with integer weights so one bootstrap replicate is its sample's multiplicities over
// the original order statistics. Cost O((m + n) log(m n)) expected instead of O(m n).
//
// The answer is bit-identical to measure::median_inplace over the materialised differences
// (the same double subtractions, the same lower + (upper - lower) / 2 for an even count): the
// gate's verdicts and intervals do not change, they only cost less.

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace ktune::guard::detail {

/// Scratch space reused across calls (the bootstrap calls this a thousand times per key).
struct hl_workspace {
    std::vector<double> xr, y;            // x descending, y ascending (positive weights only)
    std::vector<std::uint64_t> wx_prefix; // prefix sums of x's weights, in xr order
    std::vector<std::uint64_t> wy;        // y's weights
    std::vector<std::size_t> lo, hi, p;   // per row: active columns [lo, hi), counting cut
    std::vector<std::pair<double, std::uint64_t>> small; // the last few candidates, sorted
};

/// Median of {y_j - x_i} with multiplicity wx[i] * wy[j]. x and y ascending; weights may be
/// 0 (that value is absent); at least one positive weight a side. Empty weights = all 1.
double weighted_hl(std::span<const double> x, std::span<const std::uint64_t> wx,
                   std::span<const double> y, std::span<const std::uint64_t> wy, hl_workspace& ws);

/// Every difference y_j - x_i of two fixed samples, sorted once: then the weighted median for
/// any multiplicities is one walk from the bottom, which for the bootstrap of small samples
/// (a thousand replicates over the same order statistics) beats selection. Same result as
/// weighted_hl, bit for bit. Memory 16 bytes per pair: for m n up to a few thousand.
class pair_table {
public:
    pair_table(std::span<const double> x, std::span<const double> y);
    /// wx, wy: one weight per value of x and y as given to the constructor.
    [[nodiscard]] double weighted_median(std::span<const std::uint64_t> wx,
                                         std::span<const std::uint64_t> wy) const;

private:
    std::vector<double> d_;
    std::vector<std::uint32_t> ix_, iy_;
};

/// Median of the multiset {v[i] with multiplicity w[i]}, v ascending, as median_inplace.
double weighted_median(std::span<const double> v, std::span<const std::uint64_t> w);

} // namespace ktune::guard::detail
