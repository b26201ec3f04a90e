#include "ktune/gemm/problem.hpp"

#include "ktune/core/error.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <limits>

namespace ktune::gemm {
namespace {

constexpr std::array dtype_names{"bf16", "fp16", "fp8"};
constexpr std::array layout_names{"nn", "nt", "tn", "tt"};
constexpr std::array epilogue_names{"none", "bias", "relu_bias", "gelu_bias"};

template <class Enum, std::size_t N>
Enum parse_name(std::string_view v, const std::array<const char*, N>& names, const char* what) {
    for (std::size_t i = 0; i < N; ++i)
        if (v == names[i]) return static_cast<Enum>(i);
    std::string list;
    for (const char* n : names)
        list += (list.empty() ? "" : ", ") + std::string(n);
    throw error(error_kind::input, fmt::format("unknown {} '{}': use one of {}", what, v, list));
}

std::int64_t parse_dim(std::string_view text, std::string_view shape, const char* name) {
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size() || v < 1 ||
        v > std::numeric_limits<std::int32_t>::max())
        throw error(error_kind::input,
                    fmt::format("shape '{}': {} '{}' is not an integer in 1..2147483647; write "
                                "the shape as MxNxK, e.g. 16x4096x4096",
                                shape, name, text));
    return v;
}

} // namespace

std::string_view to_string(dtype t) noexcept {
    return dtype_names[static_cast<std::size_t>(t)];
}
std::string_view to_string(layout l) noexcept {
    return layout_names[static_cast<std::size_t>(l)];
}
std::string_view to_string(epilogue e) noexcept {
    return epilogue_names[static_cast<std::size_t>(e)];
}

std::string_view to_string(b_operand b) noexcept {
    return b == b_operand::weights ? "weights" : "written_before";
}

problem parse_problem(std::string_view shape, std::string_view type, std::string_view op,
                      std::string_view epi) {
    problem p;
    const auto x1 = shape.find('x');
    const auto x2 = x1 == std::string_view::npos ? x1 : shape.find('x', x1 + 1);
    if (x2 == std::string_view::npos || shape.find('x', x2 + 1) != std::string_view::npos)
        throw error(error_kind::input,
                    fmt::format("shape '{}' is not MxNxK: give three sizes, e.g. 16x4096x4096 "
                                "(D is MxN, the reduction is K)",
                                shape));
    p.m = parse_dim(shape.substr(0, x1), shape, "M");
    p.n = parse_dim(shape.substr(x1 + 1, x2 - x1 - 1), shape, "N");
    p.k = parse_dim(shape.substr(x2 + 1), shape, "K");
    p.type = parse_name<dtype>(type == "fp8_e4m3" || type == "e4m3" ? "fp8" : type, dtype_names,
                               "dtype");
    p.op = parse_name<layout>(op, layout_names, "layout");
    p.epi = parse_name<epilogue>(epi, epilogue_names, "epilogue");
    if (p.type == dtype::fp8_e4m3) {
        // cuBLASLt runs fp8 only with A transposed and B not (cuBLASLt docs, "FP8" data types),
        // and with 16-byte aligned leading dimensions.
        if (p.op != layout::tn)
            throw error(error_kind::input,
                        fmt::format("fp8 runs only in layout tn on cuBLASLt: use --layout tn "
                                    "(got {})",
                                    op));
        // K: 16-byte rows of A and B for cuBLASLt and ktune's template alike. M: cuBLASLt
        // wants a multiple of 16 too; the template takes any M (decode), so other M are left
        // to it (lt_backend.hpp's lt_takes).
        if (p.k % 16 != 0)
            throw error(error_kind::input,
                        fmt::format("fp8 needs K a multiple of 16 (16-byte rows of A and B): "
                                    "got K={}",
                                    p.k));
    }
    return p;
}

std::string describe(const problem& p) {
    std::string s =
        fmt::format("{}x{}x{} {} {}", p.m, p.n, p.k, to_string(p.type), to_string(p.op));
    if (p.epi != epilogue::none) s += fmt::format(" {}", to_string(p.epi));
    return s;
}

std::size_t input_bytes(dtype t) noexcept {
    return t == dtype::fp8_e4m3 ? 1 : 2;
}
std::size_t output_bytes(dtype) noexcept {
    return 2; // bf16/fp16 out; fp8 inputs write bf16
}

double flops(const problem& p) noexcept {
    return 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k);
}

double min_bytes(const problem& p) noexcept {
    const double in = static_cast<double>(input_bytes(p.type));
    return in * (static_cast<double>(p.m) * static_cast<double>(p.k) +
                 static_cast<double>(p.k) * static_cast<double>(p.n)) +
           static_cast<double>(output_bytes(p.type)) * static_cast<double>(p.m) *
               static_cast<double>(p.n);
}

} // namespace ktune::gemm
