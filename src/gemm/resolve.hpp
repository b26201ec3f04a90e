#pragma once
// Which algorithm a problem runs with at run time, through the seam: a cache entry of this
// cuBLASLt version that AlgoCheck accepts, else one of another version that it still accepts,
// else the heuristic's first pick. An entry of ktune's Hopper template is accepted where the
// GPU is sm_90 (`sm90`) and the template's rules take the problem (sm90_rejects); one of its
// mma.sync form where the GPU is sm_80 or later (`mma`) and its rules take it (mma_rejects); one
// of its GEMV the same way (`gemv`, gemv_rejects).

#include "gemm/gemv.hpp"
#include "gemm/lt_backend.hpp"
#include "gemm/mma.hpp"
#include "gemm/sm90_space.hpp"
#include "ktune/gemm/cache.hpp"

#include <optional>
#include <span>

namespace ktune::gemm::detail {

struct resolved {
    algo_config algo;
    algo_source source = algo_source::heuristic;
    bool found = false; ///< false: not even the heuristic has an algorithm
    bool operator==(const resolved&) const = default;
};

resolved resolve(lt_backend& lt, std::span<const cache::entry> entries, const problem& p,
                 const cache::environment& env, std::size_t max_workspace,
                 const std::optional<sm90_device>& sm90 = std::nullopt,
                 const std::optional<mma_device>& mma = std::nullopt,
                 const std::optional<gemv_device>& gemv = std::nullopt);

} // namespace ktune::gemm::detail
