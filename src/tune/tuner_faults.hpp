#pragma once
// Fault injection for the tuner's own tests and benchmarks: a deterministic subset of
// candidates is compiled with a broken epilogue, so the correctness gate and the fault
// isolation are exercised on real kernels.
#include "ktune/tune/tuner.hpp"

#include <string>

namespace ktune::tune::detail {

/// none for (1 - rate) of configs; else, by config hash: 60 % a wrong element, 30 % an
/// illegal address (kills the context), 10 % a hang.
injected_fault choose_fault(const config& c, double rate, std::uint64_t seed);

/// The #define of KTUNE_EPILOGUE(out, n) the built-in templates expand at their end.
std::string inject(injected_fault f);

} // namespace ktune::tune::detail
