#pragma once
// The tuning loop of `ktune tune gemm` apart from the GPU: enumeration through the seam,
// heuristic picks first, then the strategy over the space, then the tie-aware decision against
// cuBLAS's default pick. The GPU parts come in as two functions, so unit tests drive the loop
// with synthetic timings.

#include "gemm/enumerate.hpp"
#include "gemm/lt_runner.hpp"
#include "ktune/gemm/tune.hpp"

#include <functional>
#include <optional>

namespace ktune::gemm::detail {

struct tune_hooks {
    std::function<timing(const algo_config&)> run; ///< check + time one candidate
    std::function<timing()> run_default;           ///< the heuristic's first pick, as returned
};

/// `sm90`: the device's limits where ktune's template joins the space (an sm_90 GPU and
/// o.own_kernels), else nullopt; `mma` the same for its mma.sync form, `gemv` for its GEMV.
tune_result tune_loop(lt_backend& lt, const problem& p, const tune_options& o,
                      const tune_hooks& hooks, std::optional<sm90_device> sm90 = std::nullopt,
                      std::optional<mma_device> mma = std::nullopt,
                      std::optional<gemv_device> gemv = std::nullopt);

candidate_result to_candidate(const algo_config& a, int rank, const timing& t);

} // namespace ktune::gemm::detail
