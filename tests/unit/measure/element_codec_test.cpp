// A user kernel's host-side buffers (measure/element_codec.hpp): every element type encodes
// and decodes known values exactly, rounds to nearest-even, saturates; generators are
// deterministic; the compare counts unwritten (NaN) and out-of-tolerance elements.
#include "catch.hpp"

#include "measure/element_codec.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

using namespace ktune::measure::detail;
using ktune::kernel::element_type;
using ktune::kernel::input_generator;

namespace {
double round_trip(element_type t, double v) {
    std::uint64_t buf = 0;
    encode(t, v, &buf, 0);
    return decode(t, &buf, 0);
}
std::uint64_t bits_of(element_type t, double v) {
    std::uint64_t buf = 0;
    encode(t, v, &buf, 0);
    return buf;
}
} // namespace

TEST_CASE("the narrow float formats encode known values to their IEEE/OCP codes") {
    CHECK(bits_of(element_type::fp16, 1.0) == 0x3C00);
    CHECK(bits_of(element_type::fp16, -2.0) == 0xC000);
    CHECK(bits_of(element_type::fp16, 65504.0) == 0x7BFF);
    CHECK(bits_of(element_type::fp16, 1e9) == 0x7BFF); // saturates at the largest finite
    CHECK(bits_of(element_type::fp16, 5.960464477539063e-08) == 0x0001); // smallest subnormal
    CHECK(bits_of(element_type::bf16, 1.0) == 0x3F80);
    CHECK(bits_of(element_type::bf16, -0.5) == 0xBF00);
    CHECK(bits_of(element_type::fp8_e4m3, 448.0) == 0x7E);
    CHECK(bits_of(element_type::fp8_e4m3, 1.0) == 0x38);
    CHECK(bits_of(element_type::fp8_e5m2, 1.0) == 0x3C);
    CHECK(bits_of(element_type::fp8_e5m2, 57344.0) == 0x7B);
    // Ties go to the even code: 1 + 2^-11 lies halfway between fp16's 1 and 1 + 2^-10.
    CHECK(bits_of(element_type::fp16, 1.0 + std::ldexp(1.0, -11)) == 0x3C00);
    CHECK(bits_of(element_type::fp16, 1.0 + 3 * std::ldexp(1.0, -11)) == 0x3C02);
    CHECK(std::isnan(round_trip(element_type::fp16, std::nan(""))));
    CHECK(std::isnan(round_trip(element_type::fp8_e4m3, std::nan(""))));
    CHECK(std::isinf(decode(element_type::fp16, std::vector<std::uint16_t>{0x7C00}.data(), 0)));
}

TEST_CASE("every type round-trips the values it holds, integers round and clamp") {
    for (auto t : {element_type::fp64, element_type::fp32, element_type::fp16, element_type::bf16,
                   element_type::fp8_e4m3, element_type::fp8_e5m2, element_type::int64,
                   element_type::int32, element_type::int8})
        for (double v : {0.0, 1.0, -1.0, 0.5, -8.0, 3.0})
            CHECK(round_trip(t, v) ==
                  (v == 0.5 && (t == element_type::int64 || t == element_type::int32 ||
                                t == element_type::int8)
                       ? 0.0
                       : v));
    CHECK(round_trip(element_type::int8, 300.0) == 127);
    CHECK(round_trip(element_type::int8, -300.0) == -128);
    CHECK(round_trip(element_type::uint8, -3.0) == 0);
    CHECK(round_trip(element_type::int32, 2.5) == 2); // nearest, ties to even
    CHECK(round_trip(element_type::fp32, 0.1) == static_cast<double>(0.1f));
}

TEST_CASE("generators: deterministic per seed, in their ranges, every type") {
    std::vector<float> a(1000), b(1000), c(1000);
    generate(element_type::fp32, input_generator::uniform, 7, a.size(), a.data());
    generate(element_type::fp32, input_generator::uniform, 7, b.size(), b.data());
    generate(element_type::fp32, input_generator::uniform, 8, c.size(), c.data());
    CHECK(a == b);
    CHECK(a != c);
    for (float v : a) {
        CHECK(v >= -1.0f);
        CHECK(v < 1.0f);
    }
    std::vector<std::int8_t> i8(500);
    generate(element_type::int8, input_generator::uniform, 1, i8.size(), i8.data());
    for (auto v : i8) {
        CHECK(v >= -8);
        CHECK(v < 8);
    }
    std::vector<std::uint16_t> h(4);
    generate(element_type::bf16, input_generator::iota, 1, h.size(), h.data());
    CHECK(decode(element_type::bf16, h.data(), 3) == 3.0);
    generate(element_type::fp16, input_generator::ones, 1, h.size(), h.data());
    CHECK(h[2] == 0x3C00);
    std::vector<double> n(20000);
    generate(element_type::fp64, input_generator::normal, 3, n.size(), n.data());
    double mean = 0, var = 0;
    for (double v : n)
        mean += v / static_cast<double>(n.size());
    for (double v : n)
        var += (v - mean) * (v - mean) / static_cast<double>(n.size());
    CHECK(std::abs(mean) < 0.05);
    CHECK(std::abs(var - 1) < 0.05);
}

TEST_CASE("compare: tolerance, unwritten outputs, the reference's own NaN") {
    const std::vector<float> ref{1.0f, 2.0f, -4.0f, std::nanf(""), 0.0f};
    std::vector<float> out = ref;
    auto r = compare(element_type::fp32, out.data(), ref.data(), ref.size(), 1e-3, 1e-3);
    CHECK(r.bad == 0);
    out[1] = 2.004f;        // error 0.004 > 1e-3 + 1e-3 * 2
    out[4] = std::nanf(""); // unwritten (poisoned) output
    r = compare(element_type::fp32, out.data(), ref.data(), ref.size(), 1e-3, 1e-3);
    CHECK(r.bad == 2);
    CHECK(r.first_bad == 1);
    CHECK(r.max_error == Approx(0.004).epsilon(1e-3));
    out = ref;
    out[3] = 1.0f; // a number where the reference has NaN
    CHECK(compare(element_type::fp32, out.data(), ref.data(), ref.size(), 1, 1).bad == 1);
}
