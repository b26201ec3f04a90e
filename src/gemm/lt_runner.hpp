#pragma once
// Runs and times one GEMM problem's candidates on the GPU (the measurement protocol of
// docs/perf/gemm.md#protocol): every candidate is first checked against the fp64 reference at
// sampled positions (reference.hpp), then timed until the stopping rule (95 % CI of the median
// within the target, or a cap) holds.
//
// Weights are cold in every timed launch. Where one set of A and B is smaller than twice the L2,
// the runner keeps enough copies to exceed it and launches across them back to back, captured
// in a CUDA graph (one sample = one graph launch / copies): a decode GEMM of ~10 µs is then
// never timed with the host's dispatch inside the event window. Larger problems are timed one
// launch per event pair after an L2 flush.
//
// A candidate in the padded-K form (algo_config::pad_k, pad.hpp) is timed with its copies of A
// and B inside the same window: the application pays them on every call.

#include "gemm/sm90.hpp"
#include "ktune/gemm/algo.hpp"
#include "ktune/gemm/problem.hpp"
#include "ktune/measure/candidate.hpp"
#include "ktune/tune/searcher.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ktune::gemm::detail {

struct timing {
    tune::eval_status status = tune::eval_status::ok;
    std::string message;
    std::vector<double> samples_us;
    double median_us = 0, ci_lo_us = 0, ci_hi_us = 0;
    double max_error = 0;          ///< largest |got - ref| over the checked positions
    double max_error_ratio = 0;    ///< largest |got - ref| / tolerance (≤ 1 passes)
    std::int64_t bad_elements = 0; ///< checked positions outside tolerance
    std::string injected_fault;    ///< the bug planted in the kernel ("": none; sm90_fault)
    bool operator==(const timing&) const = default;
};

class lt_runner {
public:
    /// `b_is`: how the template's candidates are launched (problem.hpp's b_operand).
    lt_runner(const problem& p, std::size_t max_workspace, const measure::measure_policy& policy,
              b_operand b_is = b_operand::written_before);
    ~lt_runner();
    lt_runner(const lt_runner&) = delete;
    lt_runner& operator=(const lt_runner&) = delete;

    /// Checks then times the algorithm with these attributes; failures are a status. A template
    /// config runs with `fault` planted (the correctness gate's test; cuBLASLt's ignore it).
    timing run(const algo_config& a, sm90_fault fault = sm90_fault::none);
    /// The same for cublasLtMatmulAlgoGetHeuristic's first answer exactly as returned (the
    /// blob, not rebuilt from attributes): "cuBLAS's default pick".
    timing run_default();
    /// The copies of A and B the timed launches rotate over (1: L2 flush per launch).
    [[nodiscard]] int rotation_sets() const noexcept;
    /// Candidates timed with host launches because their graph capture failed.
    [[nodiscard]] int graph_fallbacks() const noexcept;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace ktune::gemm::detail
