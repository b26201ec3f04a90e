#pragma once
// A cached row-op config built by hand (the ops' unit tests): the space's axes with unroll 1 and
// cache_row true, which every staged form requires.
#include "ktune/core/config.hpp"

#include <cstdint>
#include <string>

namespace ktune::ops::test {

inline config row_config(std::int64_t tpr, std::int64_t rpb, std::int64_t cluster, std::int64_t vec,
                         const std::string& stage) {
    return {{"threads_per_row", tpr}, {"rows_per_block", rpb},     {"vec", vec},
            {"cache_row", true},      {"unroll", std::int64_t{1}}, {"cluster", cluster},
            {"stage", stage}};
}

} // namespace ktune::ops::test
