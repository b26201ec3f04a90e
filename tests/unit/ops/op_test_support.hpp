#pragma once
// Helpers of the ops' unit tests: a cached row-op config built by hand (the space's axes with
// unroll 1 and cache_row true, which every staged form requires), and an op config's source
// compiled by NVRTC for sm_90 the way the tuner compiles it.
#include "ktune/compile/compile.hpp"
#include "ktune/core/config.hpp"
#include "ktune/ops/op.hpp"

#include <cstdint>
#include <string>

namespace ktune::ops::test {

inline config row_config(std::int64_t tpr, std::int64_t rpb, std::int64_t cluster, std::int64_t vec,
                         const std::string& stage) {
    return {{"threads_per_row", tpr}, {"rows_per_block", rpb},     {"vec", vec},
            {"cache_row", true},      {"unroll", std::int64_t{1}}, {"cluster", cluster},
            {"stage", stage}};
}

inline compile::compile_result compile_sm90(const op& o, const config& c, const problem& p) {
    return compile::nvrtc_compile({o.source(c, p), std::string(kernel_name), "sm_90", {}});
}

} // namespace ktune::ops::test
