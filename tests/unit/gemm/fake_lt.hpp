#pragma once
// A synthetic cuBLASLt for the enumeration seam: capability tables and an AlgoCheck rule the
// test writes, so enumeration, pruning, the space and the cache's re-validation run without a GPU.
#include "gemm/lt_backend.hpp"
#include "gemm/lt_runner.hpp"

#include <functional>
#include <map>

namespace gemm_test {

using namespace ktune::gemm;
using namespace ktune::gemm::detail;

/// A measurement of `median` µs with a CI of ± half_ci and 16 samples, as the GPU runner reports.
inline timing timed(double median, double half_ci = 1) {
    timing t;
    t.median_us = median;
    t.ci_lo_us = median - half_ci;
    t.ci_hi_us = median + half_ci;
    t.samples_us.assign(16, median);
    return t;
}

struct fake_lt final : lt_backend {
    std::size_t lib_version = 130400;
    bool clusters = true;
    std::map<std::int32_t, algo_caps> table;
    std::vector<heuristic_pick> picks;
    /// AlgoCheck: default accepts everything, needing 1 MiB of workspace per split beyond 1.
    std::function<check_result(const algo_config&)> rule = [](const algo_config& a) {
        return check_result{true, std::size_t(a.splitk - 1) << 20, 1.0f, ""};
    };
    std::size_t checks = 0;
    std::vector<problem> checked; ///< the problem of every AlgoCheck, in order
    std::vector<problem> asked;   ///< the problem of every heuristic call, in order

    [[nodiscard]] std::size_t version() const override { return lib_version; }
    [[nodiscard]] bool cluster_launch() const override { return clusters; }
    std::vector<std::int32_t> algo_ids(const problem&) override {
        std::vector<std::int32_t> ids;
        for (const auto& [id, c] : table)
            ids.push_back(id);
        return ids;
    }
    algo_caps caps(const problem&, std::int32_t id) override { return table.at(id); }
    check_result check(const problem& p, const algo_config& a) override {
        ++checks;
        checked.push_back(p);
        if (!table.count(a.algo_id)) return {false, 0, 0, "CUBLAS_STATUS_INVALID_VALUE"};
        return rule(a);
    }
    std::vector<heuristic_pick> heuristic(const problem& p, int count,
                                          std::size_t max_ws) override {
        asked.push_back(p);
        std::vector<heuristic_pick> out;
        for (const auto& pick : picks)
            if (pick.workspace <= max_ws && int(out.size()) < count) out.push_back(pick);
        return out;
    }
};

/// Two algorithms: 10 (2 tiles × 2 stages, split-K with two reduction schemes, swizzle 0..1)
/// and 20 (no tile list, one custom option, needs 16-byte alignment of A).
inline fake_lt two_algorithms() {
    fake_lt lt;
    algo_caps a10;
    a10.algo_id = 10;
    a10.tiles = {18, 20};
    a10.stages = {8, 16};
    a10.splitk = true;
    a10.reduction_mask = 1 | 4;
    a10.swizzle_max = 1;
    a10.epilogue_mask = 1 | 4; // default, bias
    lt.table[10] = a10;
    algo_caps a20;
    a20.algo_id = 20;
    a20.custom_max = 1;
    a20.min_align_a = 16;
    a20.epilogue_mask = 1;
    lt.table[20] = a20;
    lt.picks = {{algo_config{10, 20, 16, 3, 0, 1, 0, 0, 0}, 0, 1.0f},
                {algo_config{20, 0, 0, 0, 0, 1, 0, 0, 1}, 0, 1.0f}};
    return lt;
}

} // namespace gemm_test
