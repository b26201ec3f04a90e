#pragma once
// The built-in ops, one file each; the registry (op.cpp) holds one instance of each.
#include "ktune/ops/op.hpp"

namespace ktune::ops::detail {
const op& softmax_op();
const op& layernorm_op();
const op& rowsum_op();
const op& transpose_op();
const op& scale_bias_op();
} // namespace ktune::ops::detail
