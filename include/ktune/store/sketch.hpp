#pragma once
// Mergeable summaries of one kernel's durations, small enough to keep per (run, kernel, launch)
// in a database row:
// - quantile_sketch: log-bucketed counts (the DDSketch idea) with a fixed relative accuracy;
//   merging two sketches is adding bucket counts, so fleet p50/p95/p99 come from per-run
//   sketches with the same error bound as one sketch over every duration
//   (docs/perf/store.md#sketch-accuracy).
// - duration_reservoir: a bounded uniform sample of the durations (seeded, deterministic), the
//   input of the regression statistics, which need samples rather than quantiles.
//
//   ktune::store::quantile_sketch s;  s.add(1200);  s.add(1300);
//   auto p99 = s.quantile(0.99);  auto blob = s.serialize();
//   auto t = ktune::store::quantile_sketch::deserialize(blob);  t.merge(s);

#include "ktune/core/rng.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ktune::store {

class quantile_sketch {
public:
    /// Every quantile is within this relative error of a value of the exact distribution at
    /// that rank (bucket width gamma = (1 + a) / (1 - a)).
    static constexpr double relative_accuracy = 0.005;

    void add(std::uint64_t value_ns, std::uint64_t count = 1);
    void merge(const quantile_sketch& other);
    /// q in [0, 1]; 0 for an empty sketch. Lower rank convention: the value at rank
    /// floor(q (n - 1)) of the sorted durations, within relative_accuracy.
    [[nodiscard]] double quantile(double q) const;
    [[nodiscard]] std::uint64_t count() const noexcept { return count_; }
    [[nodiscard]] std::size_t bucket_count() const noexcept { return counts_.size(); }

    /// Compact binary form (varints): stored as a BLOB; stable across platforms.
    [[nodiscard]] std::string serialize() const;
    /// Throws ktune::error{input} on a malformed blob.
    static quantile_sketch deserialize(std::span<const std::uint8_t> blob);
    bool operator==(const quantile_sketch&) const = default;

private:
    void grow_to(int index);
    std::uint64_t count_ = 0;
    std::uint64_t zeros_ = 0;           ///< durations of 0 ns (bucket of their own)
    int offset_ = 0;                    ///< log-bucket index of counts_[0]
    std::vector<std::uint64_t> counts_; ///< dense from offset_
};

/// Log-bucket index of a positive value (exposed for the accuracy test).
int sketch_index(double value) noexcept;
/// Representative value of a bucket: within relative_accuracy of every value in it.
double sketch_value(int index) noexcept;

class duration_reservoir {
public:
    static constexpr std::size_t capacity = 64;
    duration_reservoir() = default;
    explicit duration_reservoir(std::uint64_t seed) : rng_(seed) {}
    /// Algorithm R: after n adds every duration is kept with probability capacity / n.
    void add(std::uint64_t value_ns);
    [[nodiscard]] const std::vector<std::uint64_t>& values() const noexcept { return values_; }
    [[nodiscard]] std::uint64_t seen() const noexcept { return seen_; }
    /// Sorted, delta + varint encoded.
    [[nodiscard]] std::string serialize() const;
    static duration_reservoir deserialize(std::span<const std::uint8_t> blob);

private:
    splitmix64 rng_{0x6b74756e65ULL}; ///< same stream, same sample on every platform
    std::uint64_t seen_ = 0;
    std::vector<std::uint64_t> values_;
};

} // namespace ktune::store
