#pragma once
// Host-side values of a user kernel's buffers in any element type (kernel/problem.hpp): inputs
// generated here and uploaded once per problem, outputs downloaded and compared here against
// the reference's (docs/perf/kernel.md#tuning-a-user-kernel), so the worker needs no device
// kernel per element type.
#include "ktune/kernel/problem.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace ktune::measure::detail {

/// `n` elements of type `t` from generator `g` into `out` (n * size_of(t) bytes): uniform in
/// [-1, 1) (integers: [-8, 8), unsigned [0, 16)), normal(0, 1) (integers rounded), ones, zeros,
/// iota (0, 1, 2, ...; floats of few mantissa bits repeat as they round). Same seed, same bytes.
void generate(kernel::element_type t, kernel::input_generator g, std::uint64_t seed, std::size_t n,
              void* out);

/// The value of element i of a buffer of type t (NaN for a NaN code).
double decode(kernel::element_type t, const void* base, std::size_t i) noexcept;

/// `v` rounded to the nearest value of type t (ties to even code; saturating at the largest
/// finite value; integers rounded and clamped), written at element i.
void encode(kernel::element_type t, double v, void* base, std::size_t i) noexcept;

/// Compares n elements of `out` against `ref` (both of type t): |out - ref| <= atol + rtol *
/// |ref|; a NaN where the reference has a number is bad. Returns the count of bad elements and
/// the largest finite error.
struct compare_result {
    std::int64_t bad = 0;
    double max_error = 0;
    std::size_t first_bad = 0; ///< index of the first bad element (when bad > 0)
};
compare_result compare(kernel::element_type t, const void* out, const void* ref, std::size_t n,
                       double rtol, double atol) noexcept;

} // namespace ktune::measure::detail
