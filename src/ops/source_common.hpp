#pragma once
// Pieces shared by the built-in ops' NVRTC sources. The sources are self-contained (no CUDA
// headers): NVRTC then needs no include path, and compiles the same on any toolkit install.

#include "ktune/ops/op.hpp"

#include <string>

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

/// Round up to the next power of two (1 for 0).
std::int64_t next_pow2(std::int64_t v) noexcept;

/// Device code shared by the row-op templates (needs T, VEC, TPR, RPB, C and optionally
/// CLUSTER defined): the per-row constants, warp/group reductions (a row's group may be part of
/// a warp), the cluster exchange through distributed shared memory, the thread's row position,
/// and loading/storing a register-cached row.
extern const char* const row_common_source;

/// Device code of the shared-memory stage (needs V, NV, TPR from row_common_source): Hopper bulk
/// copies (cp.async.bulk) of a row slice into dynamic shared memory in NCH chunks, each
/// completing on its own mbarrier, so the reduction starts on the first chunk while the rest is
/// in flight. Inline PTX: NVRTC has no include path for cuda/barrier.
extern const char* const tma_source;

} // namespace ktune::ops::detail
