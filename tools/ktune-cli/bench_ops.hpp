#pragma once
// The GPU side of `ktune bench`: op entries and cache re-validation, through the tuner's own
// runtime (NVRTC compile with the cubin cache, a fault-isolated worker process timing with the
// measurement protocol). Kept out of the guard library so that library holds no GPU code.

#include "ktune/guard/suite.hpp"

#include <string>

namespace ktune::cli {

struct bench_gpu_options {
    double stale_band = 0.03; ///< a runner-up must beat the cached winner by more than this
};

/// Hooks for run_suite. Without a GPU the hooks stay unset and `reason` says why (the caller
/// reports it, or records the entries as unavailable with --skip-unavailable).
guard::bench_hooks make_bench_hooks(const guard::suite& s, const bench_gpu_options& o,
                                    std::string& reason);

} // namespace ktune::cli
