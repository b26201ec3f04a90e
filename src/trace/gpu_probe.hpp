#pragma once
// GPU identity for the end of a trace, read through the driver the profiled process already
// loaded (dlopen RTLD_NOLOAD): ktune never initialises CUDA itself inside someone else's
// process, and a test process without a driver simply gets no GPUs.
#include "ktune/trace/environment.hpp"

#include <cstdint>
#include <vector>

namespace ktune::trace::detail {

/// Identity (+ NVML clocks where available) of each CUDA ordinal in `devices`.
std::vector<gpu_identity> probe_gpus(const std::vector<std::uint32_t>& devices) noexcept;
/// cuDriverGetVersion of the loaded driver, 0 if none is loaded.
int loaded_driver_version() noexcept;

} // namespace ktune::trace::detail
