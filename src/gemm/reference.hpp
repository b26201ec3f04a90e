#pragma once
// Inputs and the fp64 reference of the correctness check, apart from the GPU so they are
// testable. Inputs are k/8 for k in -8..8: exact in bf16, fp16 and fp8 e4m3, so every product is
// exact and an fp32 accumulation of them is exact up to 2^18 in magnitude; the reference then
// differs from a correct result only by D's rounding (and, for split-K with an output-type
// reduction, the partials' rounding), which the K-aware tolerance below bounds.

#include "ktune/gemm/problem.hpp"

#include <cstdint>
#include <vector>

namespace ktune::gemm::detail {

/// Element `index` of a matrix filled from `seed`: a value k/8, k in -8..8.
float input_value(std::uint64_t seed, std::uint64_t index) noexcept;
/// Bits of an exactly representable value in dtype t (2 bytes for bf16/fp16, 1 for fp8).
std::uint16_t encode(dtype t, float v) noexcept;
/// A bf16 or fp16 value back to float (D's types).
float decode_output(dtype t, std::uint16_t bits) noexcept;

/// Seeds of A, B and the bias vector.
struct input_seeds {
    std::uint64_t a = 1, b = 2, bias = 3;
};

/// op(A)(i, kk) · op(B)(kk, j) summed in fp64, + bias[i], then the activation (GELU: the tanh
/// form cuBLASLt uses). Also returns Σ|products| for the tolerance.
struct reference_value {
    double value = 0;
    double abs_sum = 0;
};
reference_value reference_at(const problem& p, const input_seeds& s, std::int64_t i,
                             std::int64_t j);

/// Largest |got - ref| a correct result may show: D's rounding (2 ulp of |ref|), split-K
/// partials rounded in the output type (ulp · Σ|products| / √K), fp32 accumulation
/// (4 √K u32 Σ|products|), and, for GELU, the activation's own rounding.
double tolerance(const problem& p, const reference_value& r) noexcept;

/// Positions checked: the four corners, then `count` more spread over D deterministically.
std::vector<std::pair<std::int64_t, std::int64_t>> check_positions(const problem& p,
                                                                   std::size_t count);

} // namespace ktune::gemm::detail
