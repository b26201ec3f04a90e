#pragma once
// What of a GEMM problem one of ktune's compiled kernels is for, beside its config: the input
// type (the MMA instruction, a slab's width in elements, D's type) and the fused epilogue
// (src/gemm/kernels/gemm_epilogue.cuh). The Hopper template (sm90.hpp) and the mma.sync
// fallback (mma.hpp) compile one kernel per (config, form).

#include "ktune/gemm/problem.hpp"

namespace ktune::gemm::detail {

struct kernel_form {
    dtype type = dtype::bf16;
    epilogue epi = epilogue::none;
    bool operator==(const kernel_form&) const = default;
};

inline kernel_form kernel_form_of(const problem& p) noexcept {
    return {p.type, p.epi};
}

} // namespace ktune::gemm::detail
