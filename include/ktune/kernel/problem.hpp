#pragma once
// The problem a user kernel runs on: named integer dimensions ("M=4096,N=4096,K=4096"), the
// element types of its buffers and the arguments in kernel-argument order, sizes given as
// expressions of the dimensions (docs/formats.md#ktunekernel).
//
//   auto p = ktune::kernel::parse_problem("M=4096,N=4096,K=4096");
//   std::int64_t k = p.at("K");                                   // 4096
//   std::size_t b = ktune::kernel::size_of(ktune::kernel::element_type::bf16);   // 2

#include "ktune/kernel/expr.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ktune::kernel {

enum class element_type { fp64, fp32, fp16, bf16, fp8_e4m3, fp8_e5m2, int64, int32, int8, uint8 };

/// "fp32", "bf16", "fp8_e4m3", ...
std::string_view to_string(element_type t) noexcept;
/// Its C++ spelling in device code: "float", "__nv_bfloat16", "__nv_fp8_e4m3", "int8_t", ...
std::string_view cuda_type(element_type t) noexcept;
std::size_t size_of(element_type t) noexcept;
/// Accepts the to_string() names (and f32, float, half, bfloat16, i32, ...); nullopt otherwise.
std::optional<element_type> parse_element_type(std::string_view s) noexcept;
/// Every type, for messages ("fp64, fp32, ...").
std::string element_type_names();

/// Named problem dimensions, in the order given.
struct problem {
    std::vector<std::pair<std::string, std::int64_t>> dims;

    [[nodiscard]] const std::int64_t* find(std::string_view name) const noexcept;
    /// Throws error{not_found} naming the dimension.
    [[nodiscard]] std::int64_t at(std::string_view name) const;
    /// "M=4096,N=4096,K=4096".
    [[nodiscard]] std::string to_string() const;
    bool operator==(const problem&) const = default;
};

/// "M=4096,N=4096,K=4096" (spaces allowed around the parts). Each value is a positive
/// integer; a name appears once. Throws error{input} quoting the text and the bad part.
problem parse_problem(std::string_view text);

/// How a generated input buffer is filled (the measurement side fills it; the spec names it).
enum class input_generator { none, uniform, normal, ones, zeros, iota };
std::string_view to_string(input_generator g) noexcept;
std::optional<input_generator> parse_input_generator(std::string_view s) noexcept;

enum class argument_kind { buffer, scalar };

/// One kernel argument, in kernel-argument order.
struct argument_spec {
    std::string name;
    argument_kind kind = argument_kind::buffer;
    element_type type = element_type::fp32;
    expr size;  ///< buffer: element count over dimensions (and parameters)
    expr value; ///< scalar: its value over dimensions (and parameters)
    input_generator input = input_generator::none; ///< buffer read by the kernel
    bool output = false;                           ///< buffer written by the kernel
    std::string where;                             ///< "spec.json:12:7" for messages
};

} // namespace ktune::kernel
