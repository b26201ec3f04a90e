#pragma once
// A bf16 GEMM through cuBLASLt, timed: the tensor-core roof `ktune device --measure` reports.
#include <cstddef>
#include <vector>

namespace ktune::metrics::detail {

/// Times `repeats` n x n x n bf16 GEMMs (FP32 accumulate) after warm-up; appends ms per GEMM.
/// Throws error_kind::unsupported when cuBLASLt offers no algorithm.
void time_bf16_gemm(std::size_t n, int repeats, std::vector<double>& ms);

} // namespace ktune::metrics::detail
