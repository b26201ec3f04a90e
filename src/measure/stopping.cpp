#include "ktune/measure/stopping.hpp"

#include "ktune/measure/sample_stats.hpp"

namespace ktune::measure {

stop_decision should_stop(std::span<const double> samples, const measure_policy& p,
                          double elapsed_ms) {
    const auto n = static_cast<int>(samples.size());
    if (n >= p.max_samples) return {true, "max_samples"};
    if (n >= p.min_samples && n > 0 &&
        summarize(samples).median_ci_rel_halfwidth() <= p.target_rel_ci)
        return {true, "converged"};
    // The cap applies once a CI exists at all: a slow candidate still gets min_samples, so it
    // is ranked by a median, not by one launch.
    if (elapsed_ms >= p.max_ms && n >= p.min_samples) return {true, "time_cap"};
    return {false, ""};
}

} // namespace ktune::measure
