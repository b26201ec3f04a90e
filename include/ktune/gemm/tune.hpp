#pragma once
// `ktune tune gemm`: search every cuBLASLt algorithm of one GEMM problem. The space is the
// heuristic's top-K plus the full enumeration (docs/perf/gemm.md#space); the heuristic's picks
// are measured first, then a strategy searches the rest within the budget. A candidate replaces
// cuBLAS's default pick only when its CI of the median lies below the default's in two
// measurements (a tie never replaces it).
//
//   auto p = ktune::gemm::parse_problem("16x4096x4096", "bf16");
//   ktune::gemm::tune_result r = ktune::gemm::tune(p, {});
//   std::printf("%.2fx\n", r.speedup);

#include "ktune/gemm/algo.hpp"
#include "ktune/gemm/problem.hpp"
#include "ktune/measure/candidate.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ktune::gemm {

/// The timing policy of a GEMM tune (docs/perf/gemm.md#protocol): the stopping rule of the
/// project's protocol with a lower cap per candidate, so the full enumeration pruned by the
/// strategy fits the 10 s per shape target.
inline measure::measure_policy gemm_policy() {
    measure::measure_policy p;
    p.warmup = 2;
    p.min_samples = 10;
    p.max_samples = 100;
    p.target_rel_ci = 0.01;
    p.max_ms = 100;
    return p;
}

struct tune_options {
    std::string strategy = "auto";
    std::size_t budget = 64; ///< strategy evaluations beyond the heuristic's picks
    std::uint64_t seed = 0;
    std::size_t max_workspace = std::size_t{32} << 20;
    int heuristic_count = 16;
    /// The tune's wall-time target (docs/perf/gemm.md#tune-time): candidates whose measurement
    /// would end the tune later (at the pace measured so far, the confirmation's four
    /// measurements kept in reserve) are left out. 0: no limit.
    double max_seconds = 10;
    /// Search ktune's own Hopper GEMM template beside cuBLASLt where the GPU is sm_90 and the
    /// problem fits it (docs/perf/gemm.md#hopper-template), and its mma.sync form on GPUs of
    /// sm_80 and later without the template (docs/perf/gemm.md#mma-fallback), and its GEMV on
    /// GPUs of sm_80 and later where M <= 8 (docs/perf/gemm.md#gemv-decode).
    bool own_kernels = true;
    /// Search the mma.sync form on an sm_90 GPU too, beside the template (how its figures are
    /// taken where no other GPU is at hand).
    bool mma_on_hopper = false;
    /// Tests the correctness gate: this share (0..1) of the template's candidates run a kernel
    /// with a planted bug (docs/perf/gemm.md#hopper-faults), chosen by a hash of the config and
    /// `seed`; each must be rejected. 0: none.
    double inject_faults = 0;
    /// How the template's candidates are launched and timed: with `weights`, B is read while the
    /// kernel before ends (problem.hpp's b_operand), as the application's calls that say so.
    b_operand b_is = b_operand::written_before;
    measure::measure_policy policy = gemm_policy();
    bool operator==(const tune_options&) const = default;
};

struct candidate_result {
    algo_config algo;
    /// 0: the heuristic's first pick (for the padded form, algo.pad_k, its own heuristic's);
    /// -1: found by the enumeration.
    int heuristic_rank = -1;
    std::string status = "ok";
    std::string message;
    double median_us = 0, ci_lo_us = 0, ci_hi_us = 0;
    std::size_t samples = 0;
    double max_error_ratio = 0; ///< worst |error| / tolerance of the correctness check
    /// The bug tune_options::inject_faults planted in this candidate's kernel ("skip_slab",
    /// "drop_tile"; "" for none): a candidate that has one and passes is a wrong winner.
    std::string injected_fault;
    [[nodiscard]] bool ok() const noexcept { return status == "ok"; }
    bool operator==(const candidate_result&) const = default;
};

struct enumeration_summary {
    std::size_t algo_ids = 0, combinations = 0, checked = 0, rejected_check = 0,
                rejected_workspace = 0, rejected_alignment = 0, rejected_epilogue = 0,
                candidates = 0;
    bool truncated = false;
    double seconds = 0;
    std::size_t sm90 = 0; ///< of the candidates, configs of ktune's template
    std::size_t mma = 0;  ///< of the candidates, configs of its mma.sync form
    std::size_t gemv = 0; ///< of the candidates, configs of its GEMV (M <= 8)
    bool operator==(const enumeration_summary&) const = default;
};

struct tune_result {
    problem prob;
    std::size_t cublaslt_version = 0;
    std::string gpu;
    std::string strategy;
    int rotation_sets = 1; ///< copies of the weights rotated (1: L2 flushed per launch)
    b_operand b_is = b_operand::written_before; ///< tune_options::b_is of this tune
    int graph_fallbacks = 0; ///< candidates timed without a CUDA graph (capture failed)
    enumeration_summary space;
    std::vector<candidate_result> evaluated; ///< in evaluation order
    candidate_result default_pick;           ///< cuBLAS's first pick, the blob as returned
    candidate_result winner; ///< the recommendation (the default's attributes on a tie)
    bool replaces_default = false;
    double speedup = 1;       ///< default median / winner median (1 when not replaced)
    double max_seconds = 0;   ///< tune_options::max_seconds of this tune
    std::size_t time_cut = 0; ///< candidates left out for it (heuristic picks, search), each once
    double tune_seconds = 0;
    bool operator==(const tune_result&) const = default;
};

/// True when `challenger`'s CI of the median lies entirely below `incumbent`'s.
bool beats(const candidate_result& challenger, const candidate_result& incumbent) noexcept;

/// Tunes p on the current GPU. Throws no_device / unsupported (no cuBLASLt) / input.
tune_result tune(const problem& p, const tune_options& o);

/// The report as JSON (schema ktune.tune.gemm 1.0.0, docs/formats.md); `roof_tflops` (the
/// measured or datasheet tensor rate, 0 unknown) adds the fraction of it each figure reaches.
std::string to_json(const tune_result& r, double roof_tflops, const std::string& roof_source);
/// The same report for people.
std::string format_text(const tune_result& r, double roof_tflops, const std::string& roof_source);

} // namespace ktune::gemm
