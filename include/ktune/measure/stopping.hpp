#pragma once
// The stopping rule of the measurement protocol, apart from the GPU so it is testable on
// synthetic samples: stop once the 95 % CI of the median is within +-target_rel_ci (and at least
// min_samples were taken), or at max_samples, or when the wall-time cap is spent.
//
//   while (!should_stop(samples, policy, elapsed_ms).stop) samples.push_back(time_once());

#include "ktune/measure/candidate.hpp"

#include <span>
#include <string_view>

namespace ktune::measure {

struct stop_decision {
    bool stop = false;
    std::string_view reason; ///< "converged", "max_samples", "time_cap" or "" (go on)
    bool operator==(const stop_decision&) const = default;
};

stop_decision should_stop(std::span<const double> samples, const measure_policy& p,
                          double elapsed_ms);

} // namespace ktune::measure
