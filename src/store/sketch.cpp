// Log-bucket quantile sketch and seeded reservoir (include/ktune/store/sketch.hpp).
#include "ktune/store/sketch.hpp"

#include "store/varint.hpp"

#include <algorithm>
#include <cmath>

namespace ktune::store {
namespace {

constexpr double gamma_ =
    (1 + quantile_sketch::relative_accuracy) / (1 - quantile_sketch::relative_accuracy);
const double log_gamma = std::log(gamma_);
constexpr std::uint8_t sketch_format = 1;
constexpr std::uint8_t reservoir_format = 1;

} // namespace

int sketch_index(double value) noexcept {
    return static_cast<int>(std::ceil(std::log(value) / log_gamma));
}

double sketch_value(int index) noexcept {
    // The point of bucket (gamma^(i-1), gamma^i] whose relative distance to both ends is a.
    return 2 * std::pow(gamma_, index) / (gamma_ + 1);
}

void quantile_sketch::grow_to(int index) {
    if (counts_.empty()) {
        offset_ = index;
        counts_.assign(1, 0);
        return;
    }
    if (index < offset_) {
        counts_.insert(counts_.begin(), static_cast<std::size_t>(offset_ - index), 0);
        offset_ = index;
    } else if (index >= offset_ + static_cast<int>(counts_.size())) {
        counts_.resize(static_cast<std::size_t>(index - offset_) + 1, 0);
    }
}

void quantile_sketch::add(std::uint64_t value_ns, std::uint64_t count) {
    if (count == 0) return;
    count_ += count;
    if (value_ns == 0) {
        zeros_ += count;
        return;
    }
    const int i = sketch_index(static_cast<double>(value_ns));
    grow_to(i);
    counts_[static_cast<std::size_t>(i - offset_)] += count;
}

void quantile_sketch::merge(const quantile_sketch& other) {
    count_ += other.count_;
    zeros_ += other.zeros_;
    if (other.counts_.empty()) return;
    grow_to(other.offset_);
    grow_to(other.offset_ + static_cast<int>(other.counts_.size()) - 1);
    for (std::size_t j = 0; j < other.counts_.size(); ++j)
        counts_[static_cast<std::size_t>(other.offset_ - offset_) + j] += other.counts_[j];
}

double quantile_sketch::quantile(double q) const {
    if (count_ == 0) return 0;
    q = std::clamp(q, 0.0, 1.0);
    const auto rank = static_cast<std::uint64_t>(q * static_cast<double>(count_ - 1));
    if (rank < zeros_) return 0;
    std::uint64_t seen = zeros_;
    for (std::size_t j = 0; j < counts_.size(); ++j) {
        seen += counts_[j];
        if (seen > rank) return sketch_value(offset_ + static_cast<int>(j));
    }
    return sketch_value(offset_ + static_cast<int>(counts_.size()) - 1);
}

std::string quantile_sketch::serialize() const {
    // format, zeros, offset (zigzag), then runs: (gap of empty buckets, count) pairs, so a
    // sparse sketch (bimodal kernel) costs what it holds.
    std::string out;
    out.push_back(static_cast<char>(sketch_format));
    detail::put_varint(out, zeros_);
    detail::put_varint(out, detail::zigzag(offset_));
    std::size_t gap = 0;
    for (auto c : counts_) {
        if (c == 0) {
            ++gap;
            continue;
        }
        detail::put_varint(out, gap);
        detail::put_varint(out, c);
        gap = 0;
    }
    return out;
}

quantile_sketch quantile_sketch::deserialize(std::span<const std::uint8_t> blob) {
    if (blob.empty() || blob[0] != sketch_format)
        throw error(error_kind::input, "quantile sketch: unknown blob format (a newer ktune "
                                       "wrote it?)");
    detail::varint_reader r(blob.subspan(1), "quantile sketch");
    quantile_sketch s;
    s.zeros_ = r.next();
    s.count_ = s.zeros_;
    const auto start = detail::unzigzag(r.next());
    if (start < -100000 || start > 100000)
        throw error(error_kind::input, "quantile sketch: bucket offset out of range");
    s.offset_ = static_cast<int>(start);
    while (!r.done()) {
        const auto gap = r.next();
        const auto c = r.next();
        if (gap > 100000 || s.counts_.size() + gap > 100000)
            throw error(error_kind::input, "quantile sketch: too many buckets");
        s.counts_.resize(s.counts_.size() + gap, 0);
        s.counts_.push_back(c);
        s.count_ += c;
    }
    return s;
}

void duration_reservoir::add(std::uint64_t value_ns) {
    ++seen_;
    if (values_.size() < capacity) {
        values_.push_back(value_ns);
        return;
    }
    const std::uint64_t j = rng_.next() % seen_;
    if (j < capacity) values_[j] = value_ns;
}

std::string duration_reservoir::serialize() const {
    std::vector<std::uint64_t> sorted = values_;
    std::sort(sorted.begin(), sorted.end());
    std::string out;
    out.push_back(static_cast<char>(reservoir_format));
    detail::put_varint(out, seen_);
    std::uint64_t prev = 0;
    for (auto v : sorted) {
        detail::put_varint(out, v - prev);
        prev = v;
    }
    return out;
}

duration_reservoir duration_reservoir::deserialize(std::span<const std::uint8_t> blob) {
    if (blob.empty() || blob[0] != reservoir_format)
        throw error(error_kind::input, "duration reservoir: unknown blob format");
    detail::varint_reader r(blob.subspan(1), "duration reservoir");
    duration_reservoir d;
    d.seen_ = r.next();
    std::uint64_t prev = 0;
    while (!r.done()) {
        if (d.values_.size() >= capacity)
            throw error(error_kind::input, "duration reservoir: more values than its capacity");
        prev += r.next();
        d.values_.push_back(prev);
    }
    return d;
}

} // namespace ktune::store
