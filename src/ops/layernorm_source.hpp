#pragma once
// LayerNorm's NVRTC sources (layernorm_source.cpp), assembled by row_op::source.

namespace ktune::ops::detail {
/// The candidate kernel: after the prelude, the config's constants and row_common_source (and
/// tma_source for the staged forms).
extern const char* const layernorm_body;
/// The reference kernel (one 256-thread block per row, double accumulation).
extern const char* const layernorm_reference;
} // namespace ktune::ops::detail
