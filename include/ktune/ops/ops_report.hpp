#pragma once
// The report of `ktune ops`: every op with its space and how many configs are valid for a shape,
// as JSON (schema ktune.ops, docs/formats.md#ktuneops) and as text.
//
//   auto s = ktune::ops::parse_shape("8192x8192");
//   std::puts(ktune::ops::ops_json(ktune::ops::all_ops(), s).c_str());

#include "ktune/kernel/check.hpp"
#include "ktune/ops/op.hpp"

#include <span>
#include <string>
#include <vector>

namespace ktune::ops {

/// Users' kernel specs found under `dir` (kernel::list_specs), listed beside the built-in ops.
struct kernel_listing {
    std::string dir;
    std::vector<kernel::listed_spec> specs;
};

/// Schema ktune.ops, version 1.2.0: per op its name, version, description, PyTorch equivalent,
/// axes, the valid configs at `shape` for fp32 and bf16, its dimensions and its arguments per
/// element type (the form of a kernel spec's); with `kernels`, the specs listed.
std::string ops_json(std::span<const op* const> ops, const shape2d& shape,
                     const kernel_listing* kernels = nullptr);
/// Per op a line, one per axis (values and doc), and the valid configs at `shape`; with
/// `kernels`, a line per spec (or why it does not load).
std::string format_ops(std::span<const op* const> ops, const shape2d& shape,
                       const kernel_listing* kernels = nullptr);

} // namespace ktune::ops
