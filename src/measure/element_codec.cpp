#include "measure/element_codec.hpp"

#include "ktune/core/rng.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace ktune::measure::detail {
namespace {

using kernel::element_type;

/// A binary floating-point format narrower than float: exponent and mantissa bits, bias, and
/// whether the top exponent holds inf/NaN (IEEE) or only one NaN code (fp8 e4m3).
struct small_float {
    int exp_bits;
    int man_bits;
    int bias;
    bool ieee_top;
    [[nodiscard]] unsigned code_bits() const { return 1 + exp_bits + man_bits; }
    [[nodiscard]] unsigned sign_mask() const { return 1u << (exp_bits + man_bits); }
    /// The largest finite code's magnitude bits (codes 0..this are monotonic in value).
    [[nodiscard]] unsigned max_finite() const {
        const unsigned exp_all = (1u << exp_bits) - 1, man_all = (1u << man_bits) - 1;
        if (ieee_top) return ((exp_all - 1) << man_bits) | man_all;
        return (exp_all << man_bits) | (man_all - 1); // e4m3: S.1111.111 is NaN
    }
    [[nodiscard]] double value(unsigned code) const {
        const bool neg = (code & sign_mask()) != 0;
        const unsigned mag = code & (sign_mask() - 1);
        const unsigned e = mag >> man_bits, m = mag & ((1u << man_bits) - 1);
        double v;
        if (mag > max_finite()) {
            v = (ieee_top && m == 0) ? std::numeric_limits<double>::infinity()
                                     : std::numeric_limits<double>::quiet_NaN();
        } else if (e == 0) {
            v = std::ldexp(static_cast<double>(m), 1 - bias - man_bits);
        } else {
            v = std::ldexp(1.0 + std::ldexp(static_cast<double>(m), -man_bits),
                           static_cast<int>(e) - bias);
        }
        return neg ? -v : v;
    }
    /// Nearest code by bisection over the monotonic magnitudes, ties to the even code.
    [[nodiscard]] unsigned nearest(double v) const {
        if (std::isnan(v)) return (sign_mask() - 1); // all ones below the sign: NaN in both kinds
        const bool neg = std::signbit(v);
        const double a = std::fabs(v);
        unsigned lo = 0, hi = max_finite();
        if (a >= value(hi)) return (neg ? sign_mask() : 0) | hi;
        while (hi - lo > 1) {
            const unsigned mid = (lo + hi) / 2;
            (value(mid) <= a ? lo : hi) = mid;
        }
        const double dl = a - value(lo), dh = value(hi) - a;
        const unsigned c = dl < dh ? lo : dh < dl ? hi : ((lo & 1) ? hi : lo);
        return (neg ? sign_mask() : 0) | c;
    }
};

constexpr small_float fp16{5, 10, 15, true};
constexpr small_float bf16{8, 7, 127, true};
constexpr small_float e4m3{4, 3, 7, false};
constexpr small_float e5m2{5, 2, 15, true};

const small_float* narrow(element_type t) noexcept {
    switch (t) {
    case element_type::fp16:
        return &fp16;
    case element_type::bf16:
        return &bf16;
    case element_type::fp8_e4m3:
        return &e4m3;
    case element_type::fp8_e5m2:
        return &e5m2;
    default:
        return nullptr;
    }
}

template <class T>
T load(const void* base, std::size_t i) noexcept {
    T v;
    std::memcpy(&v, static_cast<const char*>(base) + i * sizeof(T), sizeof(T));
    return v;
}

template <class T>
void store(void* base, std::size_t i, T v) noexcept {
    std::memcpy(static_cast<char*>(base) + i * sizeof(T), &v, sizeof(T));
}

template <class T>
T clamp_int(double v) noexcept {
    if (std::isnan(v)) return 0;
    const double r = std::nearbyint(v);
    const auto lo = static_cast<double>(std::numeric_limits<T>::min());
    const auto hi = static_cast<double>(std::numeric_limits<T>::max());
    return r <= lo   ? std::numeric_limits<T>::min()
           : r >= hi ? std::numeric_limits<T>::max()
                     : static_cast<T>(r);
}

bool is_integer(element_type t) noexcept {
    return t == element_type::int64 || t == element_type::int32 || t == element_type::int8 ||
           t == element_type::uint8;
}

} // namespace

double decode(element_type t, const void* base, std::size_t i) noexcept {
    switch (t) {
    case element_type::fp64:
        return load<double>(base, i);
    case element_type::fp32:
        return load<float>(base, i);
    case element_type::int64:
        return static_cast<double>(load<std::int64_t>(base, i));
    case element_type::int32:
        return load<std::int32_t>(base, i);
    case element_type::int8:
        return load<std::int8_t>(base, i);
    case element_type::uint8:
        return load<std::uint8_t>(base, i);
    default:
        break;
    }
    const small_float& f = *narrow(t);
    const unsigned code =
        f.code_bits() == 16 ? load<std::uint16_t>(base, i) : load<std::uint8_t>(base, i);
    return f.value(code);
}

void encode(element_type t, double v, void* base, std::size_t i) noexcept {
    switch (t) {
    case element_type::fp64:
        store<double>(base, i, v);
        return;
    case element_type::fp32:
        store<float>(base, i, static_cast<float>(v));
        return;
    case element_type::int64:
        store(base, i, clamp_int<std::int64_t>(v));
        return;
    case element_type::int32:
        store(base, i, clamp_int<std::int32_t>(v));
        return;
    case element_type::int8:
        store(base, i, clamp_int<std::int8_t>(v));
        return;
    case element_type::uint8:
        store(base, i, clamp_int<std::uint8_t>(v));
        return;
    default:
        break;
    }
    const small_float& f = *narrow(t);
    const unsigned code = f.nearest(v);
    if (f.code_bits() == 16)
        store(base, i, static_cast<std::uint16_t>(code));
    else
        store(base, i, static_cast<std::uint8_t>(code));
}

void generate(element_type t, kernel::input_generator g, std::uint64_t seed, std::size_t n,
              void* out) {
    using kernel::input_generator;
    ktune::rng r(seed);
    const bool integer = is_integer(t);
    const bool unsigned_int = t == element_type::uint8;
    for (std::size_t i = 0; i < n; ++i) {
        double v = 0;
        switch (g) {
        case input_generator::none:
        case input_generator::zeros:
            v = 0;
            break;
        case input_generator::ones:
            v = 1;
            break;
        case input_generator::iota:
            v = static_cast<double>(i);
            break;
        case input_generator::uniform:
            v = integer ? std::floor(r.uniform() * 16) - (unsigned_int ? 0 : 8)
                        : 2 * r.uniform() - 1;
            break;
        case input_generator::normal: {
            // Box-Muller; 1 - u keeps the log's argument in (0, 1].
            const double u1 = 1 - r.uniform(), u2 = r.uniform();
            v = std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2);
            if (integer) v = std::nearbyint(v);
            if (unsigned_int) v = std::fabs(v);
            break;
        }
        }
        encode(t, v, out, i);
    }
}

compare_result compare(element_type t, const void* out, const void* ref, std::size_t n, double rtol,
                       double atol) noexcept {
    compare_result c;
    for (std::size_t i = 0; i < n; ++i) {
        const double o = decode(t, out, i), e = decode(t, ref, i);
        if (std::isnan(e) && std::isnan(o)) continue; // the reference's own NaN, kept
        const double err = std::fabs(o - e);
        const bool ok = std::isfinite(o) == std::isfinite(e) &&
                        (!std::isfinite(e) ? o == e : err <= atol + rtol * std::fabs(e));
        if (!ok) {
            if (c.bad == 0) c.first_bad = i;
            ++c.bad;
        }
        if (std::isfinite(err)) c.max_error = std::max(c.max_error, err);
    }
    return c;
}

} // namespace ktune::measure::detail
