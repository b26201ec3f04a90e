#pragma once
// The padded-K form (docs/perf/gemm.md#padded-k): where K is not a multiple of 8, a row of a
// K-leading operand starts on a 2-byte boundary and cuBLASLt offers only narrow-load kernels
// (0.15-0.30x of its aligned throughput). Copying A and B into buffers whose K is rounded up to
// a multiple of 8, the extra elements zero, turns the problem into an aligned one with the same
// D: the zero products add nothing. The copies are stream-ordered and capturable in a graph.

#include "ktune/gemm/problem.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ktune::gemm::detail {

/// Whether the padded form applies: bf16 or fp16 with K % 8 != 0 (fp8 needs K % 16 == 0).
bool pads_k(const problem& p) noexcept;
/// p with K rounded up to a multiple of 8 (p itself where it does not pad).
problem padded(const problem& p) noexcept;

/// Bytes of the padded copies of A and B.
struct padded_sizes {
    std::size_t a = 0, b = 0;
};
padded_sizes padded_bytes(const problem& p) noexcept;

/// The CUDA source of the copy kernel for K-leading operands (`ktune_pad_k`), compiled by NVRTC.
std::string_view pad_kernel_source() noexcept;
/// Compiles and loads the copy kernel now (NVRTC, once per process) rather than in the first
/// copy: a caller about to capture a graph or time the copies calls it first.
void prepare_pad();
/// How a K-leading operand is copied: the kernel where it compiled and loaded, else the
/// driver's 2-D copy and memset (`driver` forces those: the GPU test runs both).
enum class pad_copy : std::uint8_t { kernel, driver };

/// Enqueues the copies of A and B into a_pad and b_pad (padded_bytes each), the padding's zeros
/// included: nothing needs zeroing beforehand, so a first call inside a graph capture is as
/// good as any. Returns the first CUDA error.
cudaError_t enqueue_pad(const problem& p, const void* a, const void* b, void* a_pad, void* b_pad,
                        cudaStream_t stream, pad_copy form = pad_copy::kernel);

} // namespace ktune::gemm::detail
