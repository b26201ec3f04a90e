#pragma once
// The space of one GEMM problem: cuBLASLt's heuristic top-K plus the full enumeration NVIDIA's
// samples walk (AlgoGetIds -> per id the capabilities -> every combination -> AlgoCheck),
// pruned by workspace and alignment, as a ktune::tune::space the strategies search.

#include "gemm/gemv.hpp"
#include "gemm/lt_backend.hpp"
#include "gemm/mma.hpp"
#include "gemm/sm90_space.hpp"
#include "ktune/tune/space.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace ktune::gemm::detail {

struct enumerate_options {
    std::size_t max_workspace = std::size_t{32} << 20;
    int heuristic_count = 16;
    /// Split-K counts tried where an algorithm supports split-K (1 = none), as NVIDIA's sample.
    std::vector<std::int32_t> splitk = {1, 2, 3, 4, 5, 6, 8, 12, 16, 32};
    /// Cluster shape ids tried on devices with cluster launch: auto, 1x1, 2x1, 1x2, 2x2, 4x1,
    /// 1x4 (the sample walks all 51; shapes beyond 4 CTAs rarely fit a GEMM tile grid).
    std::vector<std::uint16_t> clusters = {0, 2, 3, 5, 6, 4, 8};
    /// AlgoCheck calls at most (each costs microseconds; the product can reach millions).
    std::size_t max_checks = 200000;
    /// ktune's Hopper template joins the space where set (an sm_90 device): its configs the
    /// rules keep for the problem (sm90_space.hpp), `sm90_picks` of them (the prior's picks,
    /// sm90_space.hpp's sm90_picks) measured beside the heuristic's picks; for a decode GEMM
    /// (M <= 64) `sm90_decode_picks`, so that it measures each form the prior cannot order
    /// (docs/perf/gemm.md#split-k-fixup).
    std::optional<sm90_device> sm90;
    std::size_t sm90_picks = 2;
    std::size_t sm90_decode_picks = 4;
    /// ktune's mma.sync form joins the space where set (docs/perf/gemm.md#mma-fallback): its
    /// configs the rules keep, the prior's first `mma_picks` measured beside the heuristic's.
    std::optional<mma_device> mma;
    std::size_t mma_picks = 2;
    /// ktune's GEMV joins the space where set and M <= 8 (docs/perf/gemm.md#gemv-decode): its
    /// configs the rules keep, the first `gemv_picks` of gemv_ranked's order measured beside the
    /// heuristic's.
    std::optional<gemv_device> gemv;
    std::size_t gemv_picks = 2;
};

struct candidate {
    algo_config algo;
    std::size_t workspace = 0;
    float waves = 0;
    int heuristic_rank = -1; ///< 0 = the heuristic's first pick; -1 = enumeration only
    bool operator==(const candidate& o) const { return algo == o.algo; }
};

struct enumeration_stats {
    std::size_t algo_ids = 0;
    std::size_t combinations = 0;   ///< generated from the capabilities
    std::size_t checked = 0;        ///< AlgoCheck calls
    std::size_t rejected_check = 0; ///< AlgoCheck said no
    std::size_t rejected_workspace = 0;
    std::size_t rejected_alignment = 0; ///< whole algorithms, by CAP_MIN_ALIGNMENT_*
    std::size_t rejected_epilogue = 0;  ///< whole algorithms, by CAP_EPILOGUE_MASK
    bool truncated = false;             ///< max_checks reached
    std::size_t sm90 = 0;               ///< configs of ktune's template in the space
    std::size_t mma = 0;                ///< configs of ktune's mma.sync form in the space
    std::size_t gemv = 0;               ///< configs of ktune's GEMV in the space
    double seconds = 0;
};

struct enumeration {
    std::vector<candidate> heuristic; ///< rank order
    /// Every heuristic pick first (`heuristic`, in its order), then the enumeration; unique.
    std::vector<candidate> all;
    enumeration_stats stats;
};

enumeration enumerate(lt_backend& lt, const problem& p, const enumerate_options& o = {});
/// A template config as an algorithm (provider ktune_sm90).
algo_config sm90_algo(const sm90_config& c);
/// A GEMV config as an algorithm (provider ktune_gemv).
algo_config gemv_algo(const gemv_config& c);

/// Axes "algo", "tile", "stages", "inner", "cluster", "splitk", "reduction", "swizzle",
/// "custom" (and "pad_k" where the padded form is among them; "kernel" and the template's
/// "sm90_bn", "sm90_stages", "sm90_consumers", "sm90_group", "sm90_cluster", "sm90_epi",
/// "sm90_tma_store" where ktune's template is, "sm90_splits" where one of its candidates
/// splits K, "sm90_cluster_b" where one's cluster shares B and "sm90_swap_ab" where one swaps A and
/// B; "kernel" and "mma_bm", "mma_bn", "mma_bk", "mma_warps_m", "mma_warps_n", "mma_stages" where
/// its mma.sync form is; "kernel" and "gemv_form", "gemv_unroll", "gemv_blocks" where its GEMV is)
/// over the values the candidates use, restricted to exactly the candidates. "kernel": 0 cuBLASLt,
/// 1 the template, 2 the mma.sync form, 3 the GEMV.
tune::space to_space(const std::vector<candidate>& cands);
/// The point of to_space(cands) a candidate stands at.
tune::point point_of(const tune::space& s, const algo_config& a);
/// The candidate a point of to_space(cands) stands for.
algo_config algo_at(const tune::space& s, const tune::point& p);

} // namespace ktune::gemm::detail
