#pragma once
// The sampled-metrics side of libktune_inject.so (`ktune profile --metrics …`): a CUPTI callback
// subscriber on kernel launches brackets each sampled launch with the range profiler (auto
// range + kernel replay, or under --replay launches a user range inside a pass that covers many
// kernels), so only those launches are serialised. The metrics are
// appended to the finished .ktrace as its metrics chunk, joined to their launches by
// correlation id and launch ordinal. Nothing here throws into the host program: a failure
// prints one line and the program continues with activity tracing only.
//
// Environment (set by `ktune profile`):
//   KTUNE_METRICS              metric set: roofline, occupancy, stalls or a comma list
//   KTUNE_METRICS_KERNELS      regex a kernel name must match          (--kernels)
//   KTUNE_METRICS_SAMPLE       profile launch 0, N, 2N, … of a kernel  (--sample 1/N)
//   KTUNE_METRICS_MAX_KERNELS  distinct kernels that get metrics       (--max-metric-kernels)
//   KTUNE_METRICS_PER_KERNEL   profiled launches per kernel            (--max-per-kernel)
//   KTUNE_METRICS_DENY         regex of kernels never to serialise     (--deny)
//   KTUNE_METRICS_MAX_PASSES   replay-pass budget per kernel (default 3)
//   KTUNE_METRICS_CACHE_CONTROL all: write back + invalidate L2 before each profiled range
//                              (before its first replay pass); none (default): leave them
//   KTUNE_METRICS_RESOLVED     the set ktune profile resolved (encode_metric_set), reused when
//                              the GPU is the chip it was resolved for
//   KTUNE_METRICS_PEAKS        `ktune device --measure --json` output to record as the roofs
#include <string>

namespace ktune::inject {

/// True when KTUNE_METRICS asks for metrics.
bool metrics_requested() noexcept;
/// Subscribes to launch callbacks. Call after the activity session started (which must not
/// hold CUPTI's subscriber slot). False, with a message on stderr, when metrics are off.
bool metrics_hook_start() noexcept;
/// Decodes what is left and stops profiling; call while CUDA contexts are still alive.
void metrics_hook_stop() noexcept;
/// Appends the metrics chunk to the saved trace at `trace_path` and prints a summary.
void metrics_hook_write(const std::string& trace_path) noexcept;

} // namespace ktune::inject
