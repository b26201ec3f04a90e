// Weighted selection in X + Y for the Hodges–Lehmann shift; see hl_select.hpp.
#include "guard/hl_select.hpp"

#include "ktune/guard/stats.hpp"

#include <algorithm>

namespace ktune::guard::detail {
namespace {

// Below this many candidates left, they are gathered and sorted: cheaper than more passes.
constexpr std::size_t gather_below = 96;

// Rows are y_j ascending, columns x descending (xr), so d(j, i) = y_j - xr_i is non-decreasing
// along both (floating-point subtraction is monotone in each operand). For a value v, the
// columns of row j with d <= v (strict: d < v) form a prefix [0, p_j) and p_j does not grow
// with j: one two-pointer pass counts the weight at or below v.
std::uint64_t weight_upto(hl_workspace& ws, double v, bool strict) {
    const std::size_t nx = ws.xr.size();
    std::size_t p = nx;
    std::uint64_t total = 0;
    for (std::size_t j = 0; j < ws.y.size(); ++j) {
        const double yj = ws.y[j];
        while (p > 0 && (strict ? yj - ws.xr[p - 1] >= v : yj - ws.xr[p - 1] > v))
            --p;
        ws.p[j] = p;
        total += ws.wy[j] * ws.wx_prefix[p];
    }
    return total;
}

// The k-th smallest (0-based) weighted difference: a randomised pivot among the candidates
// still active, its weighted rank by weight_upto, and the rows' active ranges narrowed to the
// side holding k. The pivot leaves the active set every round, so this ends; a random pivot
// halves the set in expectation, so it takes O(log(m n)) passes of O(m + n).
double select_kth(hl_workspace& ws, std::uint64_t k) {
    const std::size_t ny = ws.y.size(), nx = ws.xr.size();
    ws.lo.assign(ny, 0);
    ws.hi.assign(ny, nx);
    splitmix64 rng(0x5eed5eedULL + k); // any pivot gives the same answer; fixed for speed
    for (;;) {
        std::size_t active = 0;
        for (std::size_t j = 0; j < ny; ++j)
            active += ws.hi[j] - ws.lo[j];
        if (active <= gather_below) {
            ws.small.clear();
            std::uint64_t below = 0;
            for (std::size_t j = 0; j < ny; ++j) {
                below += ws.wy[j] * ws.wx_prefix[ws.lo[j]];
                for (std::size_t i = ws.lo[j]; i < ws.hi[j]; ++i)
                    ws.small.emplace_back(ws.y[j] - ws.xr[i],
                                          ws.wy[j] * (ws.wx_prefix[i + 1] - ws.wx_prefix[i]));
            }
            std::sort(ws.small.begin(), ws.small.end());
            for (const auto& [d, w] : ws.small) {
                below += w;
                if (below > k) return d;
            }
            return ws.small.back().first; // unreachable for k < total weight
        }
        std::size_t r = rng.below(active), j = 0;
        for (; r >= ws.hi[j] - ws.lo[j]; ++j)
            r -= ws.hi[j] - ws.lo[j];
        const double pivot = ws.y[j] - ws.xr[ws.lo[j] + r];
        const std::uint64_t lt = weight_upto(ws, pivot, true);
        if (k < lt) {
            for (std::size_t q = 0; q < ny; ++q)
                ws.hi[q] = std::max(ws.lo[q], std::min(ws.hi[q], ws.p[q]));
            continue;
        }
        if (k < weight_upto(ws, pivot, false)) return pivot;
        for (std::size_t q = 0; q < ny; ++q)
            ws.lo[q] = std::min(ws.hi[q], std::max(ws.lo[q], ws.p[q]));
    }
}

// The smallest difference above v, given that weight_upto(v, false) has just filled ws.p.
double next_above(const hl_workspace& ws) {
    bool found = false;
    double best = 0;
    for (std::size_t j = 0; j < ws.y.size(); ++j)
        if (ws.p[j] < ws.xr.size()) {
            const double d = ws.y[j] - ws.xr[ws.p[j]];
            if (!found || d < best) best = d, found = true;
        }
    return best;
}

std::uint64_t weight_at(std::span<const std::uint64_t> w, std::size_t i) {
    return w.empty() ? 1 : w[i];
}

} // namespace

double weighted_hl(std::span<const double> x, std::span<const std::uint64_t> wx,
                   std::span<const double> y, std::span<const std::uint64_t> wy, hl_workspace& ws) {
    // Values of weight 0 are dropped, so every active cell has weight > 0.
    ws.xr.clear();
    ws.wx_prefix.assign(1, 0);
    for (std::size_t i = x.size(); i-- > 0;)
        if (const auto w = weight_at(wx, i)) {
            ws.xr.push_back(x[i]);
            ws.wx_prefix.push_back(ws.wx_prefix.back() + w);
        }
    ws.y.clear();
    ws.wy.clear();
    for (std::size_t j = 0; j < y.size(); ++j)
        if (const auto w = weight_at(wy, j)) {
            ws.y.push_back(y[j]);
            ws.wy.push_back(w);
        }
    ws.p.resize(ws.y.size());
    std::uint64_t total_y = 0;
    for (auto w : ws.wy)
        total_y += w;
    const std::uint64_t total = ws.wx_prefix.back() * total_y;
    // As median_inplace: the element at total / 2 (0-based), and for an even count the largest
    // of the lower half, i.e. the element at total / 2 - 1.
    const std::uint64_t mid = total / 2;
    if (total % 2 == 1) return select_kth(ws, mid);
    const double lower = select_kth(ws, mid - 1);
    const double upper = weight_upto(ws, lower, false) > mid ? lower : next_above(ws);
    return lower + (upper - lower) / 2;
}

pair_table::pair_table(std::span<const double> x, std::span<const double> y) {
    std::vector<std::pair<double, std::uint64_t>> all;
    all.reserve(x.size() * y.size());
    for (std::size_t j = 0; j < y.size(); ++j)
        for (std::size_t i = 0; i < x.size(); ++i)
            all.emplace_back(y[j] - x[i], (static_cast<std::uint64_t>(i) << 32) | j);
    std::sort(all.begin(), all.end());
    d_.reserve(all.size());
    ix_.reserve(all.size());
    iy_.reserve(all.size());
    for (const auto& [d, ij] : all) {
        d_.push_back(d);
        ix_.push_back(static_cast<std::uint32_t>(ij >> 32));
        iy_.push_back(static_cast<std::uint32_t>(ij & 0xffffffffU));
    }
}

double pair_table::weighted_median(std::span<const std::uint64_t> wx,
                                   std::span<const std::uint64_t> wy) const {
    std::uint64_t sx = 0, sy = 0;
    for (auto w : wx)
        sx += w;
    for (auto w : wy)
        sy += w;
    const std::uint64_t total = sx * sy, mid = total / 2;
    // Ranks mid - 1 and mid (0-based) in one walk; as median_inplace for odd and even totals.
    const std::uint64_t first = total % 2 == 1 ? mid : mid - 1;
    std::uint64_t seen = 0;
    double lower = 0;
    bool have_lower = false;
    for (std::size_t k = 0; k < d_.size(); ++k) {
        seen += wx[ix_[k]] * wy[iy_[k]];
        if (!have_lower && seen > first) {
            lower = d_[k];
            have_lower = true;
            if (total % 2 == 1) return lower;
        }
        if (seen > mid) return lower + (d_[k] - lower) / 2;
    }
    return lower; // unreachable with positive total weight
}

double weighted_median(std::span<const double> v, std::span<const std::uint64_t> w) {
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < v.size(); ++i)
        total += weight_at(w, i);
    const std::uint64_t mid = total / 2;
    // The values at ranks mid - 1 and mid (0-based) in one walk.
    double lower = 0, upper = 0;
    std::uint64_t seen = 0;
    bool have_lower = false;
    for (std::size_t i = 0; i < v.size(); ++i) {
        const auto wi = weight_at(w, i);
        if (wi == 0) continue;
        if (!have_lower && mid >= 1 && seen + wi > mid - 1) lower = v[i], have_lower = true;
        if (seen + wi > mid) {
            upper = v[i];
            break;
        }
        seen += wi;
    }
    if (total % 2 == 1) return upper;
    return lower + (upper - lower) / 2;
}

} // namespace ktune::guard::detail
