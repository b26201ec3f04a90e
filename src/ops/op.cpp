#include "ktune/ops/op.hpp"

#include "ktune/core/error.hpp"
#include "ops/builtin_ops.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>

namespace ktune::ops {

std::string_view to_string(dtype d) noexcept {
    return d == dtype::f32 ? "fp32" : "bf16";
}

dtype parse_dtype(std::string_view s) {
    if (s == "fp32" || s == "f32" || s == "float32" || s == "float") return dtype::f32;
    if (s == "bf16" || s == "bfloat16") return dtype::bf16;
    throw error(error_kind::input,
                fmt::format("unknown dtype '{}': use fp32 or bf16", std::string(s)));
}

std::size_t size_of(dtype d) noexcept {
    return d == dtype::f32 ? 4 : 2;
}

shape2d parse_shape(std::string_view s) {
    const auto bad = [&] {
        return error(error_kind::input,
                     fmt::format("bad shape '{}': expected ROWSxCOLS with positive integers, "
                                 "e.g. 8192x8192",
                                 std::string(s)));
    };
    const auto sep = s.find_first_of("x,X");
    if (sep == std::string_view::npos) throw bad();
    shape2d out;
    const auto parse = [&](std::string_view t, std::int64_t& v) {
        const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
        if (r.ec != std::errc{} || r.ptr != t.data() + t.size() || v <= 0 || v > (1LL << 31))
            throw bad();
    };
    parse(s.substr(0, sep), out.rows);
    parse(s.substr(sep + 1), out.cols);
    return out;
}

std::string to_string(const shape2d& s) {
    return fmt::format("{}x{}", s.rows, s.cols);
}

kernel::element_type element_of(dtype d) noexcept {
    return d == dtype::f32 ? kernel::element_type::fp32 : kernel::element_type::bf16;
}

kernel::problem dimensions(const problem& p) {
    return {{{"rows", p.shape.rows}, {"cols", p.shape.cols}}};
}

namespace {
std::int64_t evaluate(const kernel::expr& e, const kernel::problem& dims) {
    return e.eval([&dims](std::string_view name) { return dims.find(name); });
}
} // namespace

std::vector<buffer_spec> op::buffers(const problem& p) const {
    const auto dims = dimensions(p);
    std::vector<buffer_spec> out;
    for (const auto& a : arguments(p)) {
        if (a.kind != kernel::argument_kind::buffer) continue;
        buffer_spec b{a.name, static_cast<std::size_t>(evaluate(a.size, dims)), a.output};
        b.in_place = a.output && a.input != kernel::input_generator::none;
        out.push_back(std::move(b));
    }
    return out;
}

std::vector<std::int32_t> op::scalars(const problem& p) const {
    const auto dims = dimensions(p);
    std::vector<std::int32_t> out;
    for (const auto& a : arguments(p)) {
        if (a.kind != kernel::argument_kind::scalar) continue;
        const std::int64_t v = evaluate(a.value, dims);
        if (v < INT32_MIN || v > INT32_MAX)
            throw error(error_kind::input, fmt::format("{}: scalar argument {} = {} exceeds int32",
                                                       name(), a.name, v));
        out.push_back(static_cast<std::int32_t>(v));
    }
    return out;
}

std::vector<config> op::enumerate(const problem& p) const {
    const auto ax = axes();
    std::vector<config> out;
    std::vector<std::size_t> idx(ax.size(), 0);
    if (ax.empty()) return out;
    for (;;) {
        std::vector<config::entry> e;
        e.reserve(ax.size());
        for (std::size_t i = 0; i < ax.size(); ++i)
            e.emplace_back(ax[i].name, ax[i].values[idx[i]]);
        config c(std::move(e));
        if (valid(c, p)) out.push_back(std::move(c));
        std::size_t k = ax.size();
        while (k > 0) { // odometer, last axis fastest
            --k;
            if (++idx[k] < ax[k].values.size()) break;
            idx[k] = 0;
            if (k == 0) return out;
        }
    }
}

std::span<const op* const> all_ops() {
    static const op* const ops[] = {&detail::softmax_op(), &detail::layernorm_op(),
                                    &detail::rowsum_op(), &detail::transpose_op(),
                                    &detail::scale_bias_op()};
    return ops;
}

const op& find_op(std::string_view name) {
    std::string names;
    for (const op* o : all_ops()) {
        if (o->name() == name) return *o;
        names += (names.empty() ? "" : ", ") + std::string(o->name());
    }
    throw error(error_kind::not_found,
                fmt::format("no op named '{}'; registered ops: {} (`ktune ops` lists their spaces)",
                            std::string(name), names));
}

} // namespace ktune::ops
