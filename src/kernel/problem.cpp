// Element types, problem dimensions ("M=4096,N=4096") and input generators of user kernels.
#include "ktune/kernel/problem.hpp"

#include "ktune/core/error.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <charconv>

namespace ktune::kernel {
namespace {

struct type_row {
    element_type t;
    std::string_view name;
    std::string_view cuda;
    std::size_t bytes;
};
constexpr std::array<type_row, 10> types{{
    {element_type::fp64, "fp64", "double", 8},
    {element_type::fp32, "fp32", "float", 4},
    {element_type::fp16, "fp16", "__half", 2},
    {element_type::bf16, "bf16", "__nv_bfloat16", 2},
    {element_type::fp8_e4m3, "fp8_e4m3", "__nv_fp8_e4m3", 1},
    {element_type::fp8_e5m2, "fp8_e5m2", "__nv_fp8_e5m2", 1},
    {element_type::int64, "int64", "long long", 8},
    {element_type::int32, "int32", "int", 4},
    {element_type::int8, "int8", "signed char", 1},
    {element_type::uint8, "uint8", "unsigned char", 1},
}};

const type_row& row(element_type t) noexcept {
    for (const auto& r : types)
        if (r.t == t) return r;
    return types[1];
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

bool is_identifier(std::string_view s) {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    for (char c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    return true;
}

} // namespace

std::string_view to_string(element_type t) noexcept {
    return row(t).name;
}
std::string_view cuda_type(element_type t) noexcept {
    return row(t).cuda;
}
std::size_t size_of(element_type t) noexcept {
    return row(t).bytes;
}

std::optional<element_type> parse_element_type(std::string_view s) noexcept {
    for (const auto& r : types)
        if (r.name == s) return r.t;
    struct alias {
        std::string_view name;
        element_type t;
    };
    static constexpr std::array<alias, 11> aliases{{{"f64", element_type::fp64},
                                                    {"double", element_type::fp64},
                                                    {"f32", element_type::fp32},
                                                    {"float", element_type::fp32},
                                                    {"f16", element_type::fp16},
                                                    {"half", element_type::fp16},
                                                    {"bfloat16", element_type::bf16},
                                                    {"e4m3", element_type::fp8_e4m3},
                                                    {"e5m2", element_type::fp8_e5m2},
                                                    {"i32", element_type::int32},
                                                    {"i8", element_type::int8}}};
    for (const auto& a : aliases)
        if (a.name == s) return a.t;
    return std::nullopt;
}

std::string element_type_names() {
    std::string out;
    for (const auto& r : types)
        out += (out.empty() ? "" : ", ") + std::string(r.name);
    return out;
}

const std::int64_t* problem::find(std::string_view name) const noexcept {
    for (const auto& [n, v] : dims)
        if (n == name) return &v;
    return nullptr;
}

std::int64_t problem::at(std::string_view name) const {
    if (const auto* v = find(name)) return *v;
    throw error(error_kind::not_found,
                fmt::format("the problem has no dimension '{}' (it has {})", name, to_string()));
}

std::string problem::to_string() const {
    std::string out;
    for (const auto& [n, v] : dims)
        out += fmt::format("{}{}={}", out.empty() ? "" : ",", n, v);
    return out;
}

problem parse_problem(std::string_view text) {
    auto bad = [&](const std::string& what) {
        throw error(error_kind::input,
                    fmt::format("problem '{}': {} (expected NAME=INT,... such as "
                                "M=4096,N=4096,K=4096)",
                                text, what));
    };
    problem p;
    if (trim(text).empty()) bad("it is empty");
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        const std::string_view part = trim(text.substr(start, comma - start));
        start = comma + 1;
        if (part.empty()) bad("an empty part between commas");
        const std::size_t eq = part.find('=');
        if (eq == std::string_view::npos) bad(fmt::format("'{}' has no '=value'", part));
        const std::string_view name = trim(part.substr(0, eq));
        const std::string_view value = trim(part.substr(eq + 1));
        if (!is_identifier(name))
            bad(fmt::format("'{}' is not a dimension name (letters, digits, '_')", name));
        std::int64_t v = 0;
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
        if (ec == std::errc::result_out_of_range)
            bad(fmt::format("{}={} is beyond int64", name, value));
        if (ec != std::errc{} || end != value.data() + value.size() || value.empty())
            bad(fmt::format("{}='{}' is not an integer", name, value));
        if (v <= 0) bad(fmt::format("{}={} must be positive", name, v));
        if (p.find(name)) bad(fmt::format("'{}' is given twice", name));
        p.dims.emplace_back(std::string(name), v);
        if (comma == text.size()) break;
    }
    return p;
}

std::string_view to_string(input_generator g) noexcept {
    switch (g) {
    case input_generator::uniform:
        return "uniform";
    case input_generator::normal:
        return "normal";
    case input_generator::ones:
        return "ones";
    case input_generator::zeros:
        return "zeros";
    case input_generator::iota:
        return "iota";
    case input_generator::none:
        break;
    }
    return "none";
}

std::optional<input_generator> parse_input_generator(std::string_view s) noexcept {
    for (auto g : {input_generator::uniform, input_generator::normal, input_generator::ones,
                   input_generator::zeros, input_generator::iota})
        if (to_string(g) == s) return g;
    return std::nullopt;
}

} // namespace ktune::kernel
