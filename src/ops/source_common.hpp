#pragma once
// Pieces shared by the built-in ops' NVRTC sources. The sources are self-contained (no CUDA
// headers): NVRTC then needs no include path, and compiles the same on any toolkit install.

#include "ktune/ops/op.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace ktune::ops::detail {

/// typedef T, to_f/from_f conversions (bf16 by bit manipulation, round to nearest even),
/// vec_t<N> (aligned so that a copy is one wide load), warp/group reductions, and the
/// KTUNE_EPILOGUE hook the fault-injection tests use (empty by default), ex2, and
/// to_vec<N>(const float (&)[N]) -> vec_t<N> (bf16: two elements per cvt.rn.bf16x2.f32, from_f2).
std::string prelude(dtype d);

/// "constexpr int NAME = value;\n" lines for every integer/bool parameter of c, upper-cased.
std::string constants(const config& c);

/// Values of an integer axis.
std::vector<param_value> ints(std::initializer_list<std::int64_t> v);

/// Whether c's vectors (its "vec") do not divide p's rows: the ragged forms
/// (docs/perf/kernels.md#rows-of-odd-length).
bool ragged(const config& c, const problem& p);

/// For a ragged c: "#define RAGGED 1" and the reads at any element offset (column_operand.cuh:
/// shift_pair, column_vec); else empty.
std::string ragged_source(const config& c, const problem& p);

/// A buffer argument of the problem's element type, `size` an expression of rows and cols;
/// `input`: filled before a launch (uniform values); `output`: written and checked.
kernel::argument_spec buffer_argument(std::string name, const problem& p, std::string_view size,
                                      bool input, bool output);
/// `buffers` followed by the int32 scalars rows and cols, as every built-in kernel takes them.
std::vector<kernel::argument_spec> with_shape(std::vector<kernel::argument_spec> buffers);

/// Round up to the next power of two (1 for 0).
std::int64_t next_pow2(std::int64_t v) noexcept;

// The kernels themselves are .cuh files (src/ops/kernels/), embedded at build time as the
// strings of ops/kernel_sources.hpp (generated; src/ops/embed_kernels.cmake).

} // namespace ktune::ops::detail
