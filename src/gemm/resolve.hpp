#pragma once
// Which algorithm a problem runs with at run time, through the seam: a cache entry of this
// cuBLASLt version that AlgoCheck accepts, else one of another version that it still accepts,
// else the heuristic's first pick.

#include "gemm/lt_backend.hpp"
#include "ktune/gemm/cache.hpp"

#include <span>

namespace ktune::gemm::detail {

struct resolved {
    algo_config algo;
    algo_source source = algo_source::heuristic;
    bool found = false; ///< false: not even the heuristic has an algorithm
    bool operator==(const resolved&) const = default;
};

resolved resolve(lt_backend& lt, std::span<const cache::entry> entries, const problem& p,
                 const cache::environment& env, std::size_t max_workspace);

} // namespace ktune::gemm::detail
