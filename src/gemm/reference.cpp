#include "gemm/reference.hpp"

#include "ktune/core/rng.hpp"

#include <bit>
#include <cmath>
#include <cstring>

namespace ktune::gemm::detail {
namespace {

// Sign, biased exponent and top mantissa bits of an exactly representable nonzero value.
std::uint16_t pack(float v, int exp_bits, int man_bits) noexcept {
    const std::uint16_t sign = v < 0 ? std::uint16_t(1u << (exp_bits + man_bits)) : 0;
    int e = 0;
    const double f = std::frexp(std::fabs(double(v)), &e); // |v| = f 2^e, f in [0.5, 1)
    const int bias = (1 << (exp_bits - 1)) - 1;
    const auto mant = static_cast<std::uint16_t>((2 * f - 1) * double(1 << man_bits));
    return std::uint16_t(sign | ((e - 1 + bias) << man_bits) | mant);
}

} // namespace

float input_value(std::uint64_t seed, std::uint64_t index) noexcept {
    // The first draw of a splitmix64 seeded from (seed, index): any element in any order.
    const auto k = static_cast<int>(splitmix64_at(seed * 0x100000001b3ULL ^ index, 0) % 17) - 8;
    return static_cast<float>(k) / 8.0f;
}

std::uint16_t encode(dtype t, float v) noexcept {
    if (v == 0) return 0;
    switch (t) {
    case dtype::fp16:
        return pack(v, 5, 10);
    case dtype::fp8_e4m3:
        return pack(v, 4, 3);
    case dtype::bf16:
    default:
        return static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(v) >> 16);
    }
}

float decode_output(dtype t, std::uint16_t bits) noexcept {
    if (t != dtype::fp16) return std::bit_cast<float>(std::uint32_t{bits} << 16);
    const std::uint32_t sign = (bits >> 15) & 1u, exp = (bits >> 10) & 0x1fu, man = bits & 0x3ffu;
    float v = 0;
    if (exp == 0)
        v = std::ldexp(float(man), -24);
    else if (exp == 31)
        v = man ? NAN : INFINITY;
    else
        v = std::ldexp(float(man | 0x400u), int(exp) - 25);
    return sign ? -v : v;
}

reference_value reference_at(const problem& p, const input_seeds& s, std::int64_t i,
                             std::int64_t j) {
    reference_value r;
    for (std::int64_t kk = 0; kk < p.k; ++kk) {
        // Stored column-major: A is k×m when transposed, else m×k; B is n×k or k×n.
        const std::int64_t ia = p.transa() ? kk + i * p.k : i + kk * p.m;
        const std::int64_t ib = p.transb() ? j + kk * p.n : kk + j * p.k;
        const double prod = double(input_value(s.a, std::uint64_t(ia))) *
                            double(input_value(s.b, std::uint64_t(ib)));
        r.value += prod;
        r.abs_sum += std::fabs(prod);
    }
    if (p.epi != epilogue::none) r.value += input_value(s.bias, std::uint64_t(i));
    if (p.epi == epilogue::relu_bias) r.value = std::max(0.0, r.value);
    if (p.epi == epilogue::gelu_bias) {
        const double x = r.value;
        r.value = 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    }
    return r;
}

double tolerance(const problem& p, const reference_value& r) noexcept {
    const double ulp = p.type == dtype::fp16 ? std::ldexp(1.0, -10) : std::ldexp(1.0, -7);
    const double k = static_cast<double>(p.k);
    double tol = 2 * ulp * std::fabs(r.value) + ulp * r.abs_sum / std::sqrt(k) +
                 4 * std::sqrt(k) * std::ldexp(1.0, -23) * r.abs_sum + 1e-6;
    // Hopper's fp8 MMA accumulates in fewer than fp32's bits between cuBLASLt's promotions.
    if (p.type == dtype::fp8_e4m3) tol += 4 * std::ldexp(1.0, -10) * r.abs_sum / std::sqrt(k);
    if (p.epi == epilogue::gelu_bias) tol += 1e-3 + ulp * std::fabs(r.value);
    return tol;
}

std::vector<std::pair<std::int64_t, std::int64_t>> check_positions(const problem& p,
                                                                   std::size_t count) {
    std::vector<std::pair<std::int64_t, std::int64_t>> pos{
        {0, 0}, {p.m - 1, 0}, {0, p.n - 1}, {p.m - 1, p.n - 1}};
    for (std::size_t c = 0; c < count; ++c) {
        const std::uint64_t h = splitmix64_at(0xc0ffeeULL + c, 0);
        pos.emplace_back(std::int64_t(h % std::uint64_t(p.m)),
                         std::int64_t((h >> 32) % std::uint64_t(p.n)));
    }
    return pos;
}

} // namespace ktune::gemm::detail
