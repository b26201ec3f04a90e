#pragma once
// One cache row: the winning config of a key, how well it was measured, and where.
//
//   ktune::cache::entry e{key, cfg, {12.3, 12.1, 12.5, 40},
//   ktune::cache::provenance::current(dev)};

#include "ktune/cache/key.hpp"
#include "ktune/core/config.hpp"
#include "ktune/core/device.hpp"

#include <cstdint>
#include <string>

namespace ktune::cache {

struct measurement {
    double median_us = 0; ///< median kernel time
    double ci_low_us = 0; ///< confidence interval of the median
    double ci_high_us = 0;
    std::int64_t samples = 0; ///< timed repetitions behind the median
    bool operator==(const measurement&) const = default;
};

struct provenance {
    std::string gpu_name; ///< "NVIDIA H200"
    std::string gpu_uuid; ///< "GPU-…"
    unsigned sm_mhz = 0;  ///< SM clock while measured (0 = unknown)
    unsigned memory_mhz = 0;
    std::string date;          ///< UTC, ISO 8601: "2026-11-21T10:00:00Z"
    std::string ktune_version; ///< ktune::version() of the writer
    std::string host;          ///< host name of the writer
    bool operator==(const provenance&) const = default;

    /// This process, now, on `dev` (clocks through NVML where available).
    static provenance current(const device_info& dev);
};

struct entry {
    cache_key key;
    config cfg;
    measurement time;
    provenance origin;
    bool operator==(const entry&) const = default;
};

/// The tie rule, a strict total order on entries of one key ("a beats b"):
///  1. non-overlapping confidence intervals: the faster one wins;
///  2. overlapping intervals are a tie, broken deterministically by the lower upper CI bound
///     (the better-proven entry), then more samples, lower median, config text, GPU UUID, date,
///     host. Rule 1 is implied by comparing upper bounds first, so the order is total and
///     merging is associative, commutative and idempotent.
bool better(const entry& a, const entry& b) noexcept;

/// Why an entry is not usable ("" when it is): e.g. median outside its CI, samples < 1.
std::string validate(const entry& e);

/// The entry as the cache file stores it (one JSON object, compact): for tools that print
/// entries, so the printed form is the stored form.
std::string to_json_text(const entry& e);

} // namespace ktune::cache
