#pragma once
// Device-side helpers of the worker: seeded uniform fill and the tolerance compare, for fp32
// and bf16 (utility_kernels.cpp), compiled once per worker with NVRTC.

namespace ktune::measure::detail {

extern const char* const utility_source;

} // namespace ktune::measure::detail
