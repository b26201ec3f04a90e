#pragma once
// The GPU side of a bench suite (`ktune bench`, or an application's own gate): op entries and
// cache re-validation through the tuner's runtime (NVRTC compile with the cubin cache, a
// fault-isolated ktune-worker timing with the measurement protocol). Separate from suite.hpp so
// that running command entries needs no GPU code.
//
//   ktune::guard::bench_options o;
//   o.hooks = ktune::guard::op_runtime_hooks(s, {}, o.unavailable_reason);
//   auto results = ktune::guard::run_suite(s, o);

#include "ktune/guard/suite.hpp"

#include <string>

namespace ktune::guard {

struct op_runtime_options {
    double stale_band = 0.03; ///< a runner-up must beat the cached winner by more than this
};

/// Hooks for run_suite. Without a GPU the hooks stay unset and `reason` says why (the caller
/// reports it, or records the entries as unavailable with skip_unavailable). Throws
/// error{input} for an op entry naming no registered op.
bench_hooks op_runtime_hooks(const suite& s, const op_runtime_options& o, std::string& reason);

} // namespace ktune::guard
