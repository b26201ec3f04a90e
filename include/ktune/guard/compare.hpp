#pragma once
// The regression verdict of `ktune diff`: per key, is the candidate the same, faster, slower,
// or can the data not tell — and why.
//
// Decision rule (documented in docs/perf/guard.md, calibrated by bench/guard/): per key with at
// least `min_samples` a side, p = two-sided Mann–Whitney U; q = Benjamini–Hochberg across the
// compared keys (weighted by share of GPU time where known); r = Hodges–Lehmann shift / baseline
// median with a percentile-bootstrap CI [lo, hi]; T = threshold.
//   slower        q <= alpha  and  lo >= T/2  and  hi >= 0.9 T  (significant, and at least half
//                 the threshold for sure, and a threshold-sized change is plausible, within
//                 10 %: a quiet GPU measures a true shift of T as T +- 0.01 %)
//   faster        the mirror image
//   same          otherwise, if -T < lo and hi < T  (any change is smaller than T)
//   inconclusive  otherwise (too noisy to rule out a change of T), too few samples, or a
//                 baseline median of 0
//   failed        the candidate's entry failed (status not ok) or a bench key is missing
// A/A stays quiet because both a significant test and a CI beyond T/2 are needed; a true
// slowdown of T is found because its CI reaches 0.9 T and, with low noise, lo >= T/2.
//
//   auto d = ktune::guard::compare(base, cand, {.threshold = 0.05});
//   return d.exit_code();   // 0 pass, 1 regression or failure, 3 nothing could be judged

#include "ktune/guard/series.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::guard {

/// `failed`: the candidate has no samples for a key it must have (its entry failed, or a bench
/// key is missing): the gate fails as for `slower`.
enum class verdict { same, faster, slower, inconclusive, failed };
enum class cause {
    none,            ///< same, nothing to explain
    kernel_time,     ///< the per-launch time changed on the same environment
    launch_count,    ///< launches per run changed by at least the threshold
    launch_shape,    ///< the kernel runs with another grid/block (or problem) shape
    new_kernel,      ///< only in the candidate
    removed_kernel,  ///< only in the baseline
    environment,     ///< GPU, driver, toolkit or clocks differ between the runs
    too_few_samples, ///< fewer than min_samples on a side
    noisy,           ///< too much noise to rule out a threshold-sized change
    failed_entry,    ///< the candidate's entry has a status other than ok
    missing_key,     ///< a bench key of the baseline is not in the candidate
    zero_baseline,   ///< the baseline median is 0: a relative change is undefined
};

std::string_view to_string(verdict v) noexcept;
std::string_view to_string(cause c) noexcept;

struct diff_options {
    double threshold = 0.05;     ///< minimum effect, relative (0.05 = 5 %)
    double alpha = 0.05;         ///< false discovery rate across keys (Benjamini–Hochberg)
    double confidence = 0.95;    ///< of the bootstrap CI of the relative shift
    int resamples = 1000;        ///< bootstrap replicates per key
    std::uint64_t seed = 1;      ///< bootstrap seed (mixed with each key: order-independent)
    std::size_t min_samples = 8; ///< per side; fewer → inconclusive
    bool operator==(const diff_options&) const = default;
};

struct key_diff {
    std::string key; ///< candidate key (name + shape)
    std::string name;
    std::string shape;      ///< candidate's shape
    std::string base_shape; ///< differs from shape when matched by name across a shape change
    std::string unit;
    std::size_t n_base = 0, n_cand = 0;
    double base_median = 0, cand_median = 0;
    double p_value = 1, q_value = 1;
    double rel = 0, rel_lo = 0, rel_hi = 0; ///< relative HL shift and its CI
    double share = 0;                       ///< baseline share of GPU time (0 = unknown)
    double launches_base = 0, launches_cand = 0;
    verdict result = verdict::inconclusive;
    cause why = cause::none;
    std::string detail; ///< one human sentence
    bool operator==(const key_diff&) const = default;
};

struct diff_report {
    std::string baseline_source, candidate_source;
    diff_options options;
    std::vector<std::string> environment_differences;
    std::vector<std::string> notes;
    std::vector<key_diff>
        keys; ///< slower first (largest shift first), then faster, inconclusive, same
    [[nodiscard]] std::size_t count(verdict v) const;
    /// 1 if any key is slower or failed; else 3 (inconclusive) if no key could be judged same
    /// or faster, e.g. too few samples everywhere; else 0. (2 stays usage or input error.)
    [[nodiscard]] int exit_code() const;
    /// "pass", "regression" (exit 1) or "inconclusive" (exit 3).
    [[nodiscard]] std::string_view outcome() const;
    bool operator==(const diff_report&) const = default;
};

/// Compares candidate against baseline key by key; see the decision rule above.
diff_report compare(const series_set& baseline, const series_set& candidate,
                    const diff_options& options = {});

} // namespace ktune::guard
