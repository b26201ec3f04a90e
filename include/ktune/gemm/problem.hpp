#pragma once
// A GEMM as cuBLASLt sees it: D = act(alpha * op(A) * op(B) + bias), column-major, fp32
// accumulate. The layout names op(A) then op(B): "tn" is A transposed, B not (the layout
// PyTorch's row-major x @ W^T lands on, and the only one cuBLASLt runs fp8 in on Hopper).
//
//   auto p = ktune::gemm::parse_problem("16x4096x4096", "bf16", "tn", "none");
//   double tflop = ktune::gemm::flops(p) * 1e-12;

#include <cstdint>
#include <string>
#include <string_view>

namespace ktune::gemm {

/// Input type of A and B; D (and C, bias) are the same type, bf16 for fp8 inputs.
enum class dtype : std::uint8_t { bf16, fp16, fp8_e4m3 };
enum class layout : std::uint8_t { nn, nt, tn, tt };
/// cuBLASLt's fused epilogues this op offers (bias is a vector of M, one value per row of D).
enum class epilogue : std::uint8_t { none, bias, relu_bias, gelu_bias };

struct problem {
    std::int64_t m = 0;
    std::int64_t n = 0;
    std::int64_t k = 0;
    gemm::dtype type = dtype::bf16;
    gemm::layout op = layout::tn;
    gemm::epilogue epi = epilogue::none;
    bool operator==(const problem&) const = default;

    [[nodiscard]] bool transa() const noexcept { return op == layout::tn || op == layout::tt; }
    [[nodiscard]] bool transb() const noexcept { return op == layout::nt || op == layout::tt; }
};

/// What a caller says about B between the kernel queued just before a GEMM and the GEMM. With
/// `weights` (B is not written by that kernel: model weights), ktune's Hopper template requests
/// its first slabs of B before waiting for that kernel to end, so they stream in during its
/// tail (docs/perf/gemm.md#early-weights); cuBLASLt's algorithms ignore it.
enum class b_operand : std::uint8_t { written_before, weights };

std::string_view to_string(dtype t) noexcept;
std::string_view to_string(layout l) noexcept;
std::string_view to_string(epilogue e) noexcept;
std::string_view to_string(b_operand b) noexcept;

/// Parses "MxNxK" (each 1..2^31-1) and the names ("bf16|fp16|fp8", "nn|nt|tn|tt",
/// "none|bias|relu_bias|gelu_bias"). Throws ktune::error(input) saying what to change,
/// including combinations cuBLASLt does not run (fp8 outside tn, fp8 with K % 16 != 0).
problem parse_problem(std::string_view shape, std::string_view type, std::string_view op = "tn",
                      std::string_view epi = "none");

/// "4096x4096x4096 bf16 tn" (+ " gelu_bias" when there is an epilogue).
std::string describe(const problem& p);

/// Bytes of one element of A/B, and of D.
std::size_t input_bytes(dtype t) noexcept;
std::size_t output_bytes(dtype t) noexcept;
/// 2 M N K.
double flops(const problem& p) noexcept;
/// Minimum DRAM traffic: A and B read once, D written once (bias ignored).
double min_bytes(const problem& p) noexcept;

} // namespace ktune::gemm
