#pragma once
// The copy kernels of the copy roof (copy_bandwidth.cpp), compiled once with NVRTC.

namespace ktune::measure::detail {

/// extern "C" ktune_copy16 and ktune_copy16_stream: 16 bytes per thread and step, grid-stride,
/// plain or streaming (evict-first) loads and stores; n16 counts 16-byte elements.
extern const char* const copy_kernel_source;

} // namespace ktune::measure::detail
