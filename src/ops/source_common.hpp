#pragma once
// Pieces shared by the built-in ops' NVRTC sources. The sources are self-contained (no CUDA
// headers): NVRTC then needs no include path, and compiles the same on any toolkit install.

#include "ktune/ops/op.hpp"

#include <string>

namespace ktune::ops::detail {

/// typedef T, to_f/from_f conversions (bf16 by bit manipulation, round to nearest even),
/// vec_t<N> (aligned so that a copy is one wide load), warp/group reductions, and the
/// KTUNE_EPILOGUE hook the fault-injection tests use (empty by default).
std::string prelude(dtype d);

/// "constexpr int NAME = value;\n" lines for every integer/bool parameter of c, upper-cased.
std::string constants(const config& c);

/// Values of an integer axis.
std::vector<param_value> ints(std::initializer_list<std::int64_t> v);

/// Round up to the next power of two (1 for 0).
std::int64_t next_pow2(std::int64_t v) noexcept;

/// Row-op checks shared by softmax, layernorm and rowsum: block size, vector width divides
/// cols, 16-byte vectors at most, register-cached row fits.
bool row_op_valid(const config& c, const problem& p, bool has_cache, std::string* why);

/// Geometry of the row ops: one group of threads_per_row threads per row.
launch_geometry row_geometry(const config& c, const problem& p);
/// One 256-thread block per row: the reference kernels.
launch_geometry row_reference_geometry(const problem& p);

/// Reduction helpers shared by the row-op templates (needs TPR and RPB constants).
extern const char* const row_reduce_source;

} // namespace ktune::ops::detail
