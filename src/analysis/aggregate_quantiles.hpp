#pragma once
// Per-group duration samples with bounded memory: exact values up to `exact_limit`, then a
// log-linear histogram (64 sub-buckets per power of two: ≤ 0.8 % error at the bucket midpoint).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

namespace ktune::analysis::detail {

class quantile_sketch {
public:
    static constexpr std::size_t exact_limit = 4096;
    static constexpr unsigned sub_bits = 6;
    static constexpr std::size_t buckets = (64 - sub_bits) * 64 + 64;

    void add(std::uint64_t v) {
        ++count_;
        if (hist_.empty()) {
            exact_.push_back(v);
            if (exact_.size() > exact_limit) {
                hist_.assign(buckets, 0);
                for (auto x : exact_)
                    ++hist_[bucket(x)];
                exact_.clear();
                exact_.shrink_to_fit();
            }
        } else {
            ++hist_[bucket(v)];
        }
    }

    /// q in [0, 1]; linear interpolation between ranks while exact (numpy's default).
    double quantile(double q) {
        if (count_ == 0) return 0;
        if (hist_.empty()) {
            std::sort(exact_.begin(), exact_.end());
            const double pos = q * static_cast<double>(exact_.size() - 1);
            const auto lo = static_cast<std::size_t>(std::floor(pos));
            const auto hi = std::min(lo + 1, exact_.size() - 1);
            const double f = pos - static_cast<double>(lo);
            return static_cast<double>(exact_[lo]) * (1 - f) + static_cast<double>(exact_[hi]) * f;
        }
        const auto rank = static_cast<std::uint64_t>(q * static_cast<double>(count_ - 1)) + 1;
        std::uint64_t seen = 0;
        for (std::size_t i = 0; i < hist_.size(); ++i) {
            seen += hist_[i];
            if (seen >= rank) return midpoint(i);
        }
        return midpoint(hist_.size() - 1);
    }
    [[nodiscard]] std::uint64_t count() const noexcept { return count_; }

    static std::size_t bucket(std::uint64_t v) {
        if (v < 64) return static_cast<std::size_t>(v);
        const unsigned e = 63u - static_cast<unsigned>(std::countl_zero(v)); // >= 6
        const std::uint64_t sub = (v >> (e - sub_bits)) & 63u;
        return 64 + (e - sub_bits) * 64 + static_cast<std::size_t>(sub);
    }
    static double midpoint(std::size_t i) {
        if (i < 64) return static_cast<double>(i);
        const std::size_t e = (i - 64) / 64 + sub_bits;
        const std::size_t sub = (i - 64) % 64;
        const double width = std::ldexp(1.0, static_cast<int>(e - sub_bits));
        return (64.0 + static_cast<double>(sub)) * width + width / 2 - 0.5;
    }

private:
    std::uint64_t count_ = 0;
    std::vector<std::uint64_t> exact_;
    std::vector<std::uint32_t> hist_;
};

} // namespace ktune::analysis::detail
