#pragma once
// PyTorch's torch.matmul (torch._scaled_mm for fp8) on the same problem, timed by a bundled
// Python script with the runner's protocol: weights rotated over the same number of copies in a
// CUDA graph, or an L2 sweep outside the events when one copy exceeds twice the L2.
//
//   auto t = ktune::gemm::time_torch(p, r.rotation_sets);   // after the tune
//   if (t.ok) std::printf("%.2f us\n", t.median_us);

#include "ktune/gemm/problem.hpp"

#include <string>

namespace ktune::gemm {

struct torch_timing {
    bool ok = false;
    std::string message; ///< why not, when !ok
    double median_us = 0, ci_lo_us = 0, ci_hi_us = 0;
    std::string torch_version;
    bool operator==(const torch_timing&) const = default;
};

/// Runs python3 (or $KTUNE_PYTHON) with torch; never throws for a missing torch (ok = false).
torch_timing time_torch(const problem& p, int rotation_sets);

} // namespace ktune::gemm
