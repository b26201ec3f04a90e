#pragma once
// The seam in front of cuBLASLt's algorithm API: what the enumeration asks (ids, capabilities,
// AlgoCheck, the heuristic) for one problem. The real backend (lt_backend_real.cpp) answers from
// the library on the GPU; unit tests answer from synthetic capability tables, so the whole
// enumeration, pruning, space and cache logic runs without a GPU.

#include "ktune/gemm/algo.hpp"
#include "ktune/gemm/problem.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ktune::gemm::detail {

/// cublasLtMatmulAlgoCapGetAttribute's answers for one algorithm id.
struct algo_caps {
    std::int32_t algo_id = 0;
    std::vector<std::uint32_t> tiles;  ///< CAP_TILE_IDS; {0} (undefined) when it lists none
    std::vector<std::uint32_t> stages; ///< CAP_STAGES_IDS; {0} when it lists none
    bool splitk = false;               ///< CAP_SPLITK_SUPPORT
    std::uint32_t reduction_mask = 0;  ///< CAP_REDUCTION_SCHEME_MASK
    std::uint32_t swizzle_max = 0;     ///< CAP_CTA_SWIZZLING_SUPPORT
    std::int32_t custom_max = 0;       ///< CAP_CUSTOM_OPTION_MAX
    std::uint32_t epilogue_mask = 0;   ///< CAP_EPILOGUE_MASK (cublasLtEpilogue_t bits)
    std::uint32_t min_align_a = 0;     ///< CAP_MIN_ALIGNMENT_*_BYTES
    std::uint32_t min_align_b = 0;
    std::uint32_t min_align_c = 0;
    std::uint32_t min_align_d = 0;
    bool operator==(const algo_caps&) const = default;
};

/// Whether cuBLASLt runs the problem at all: fp8 needs M and K multiples of 16 (its 16-byte
/// leading dimensions, cuBLASLt docs "FP8" data types). ktune's Hopper template runs fp8 at any M
/// (decode batches of 1 to 15), so the problem is accepted and cuBLASLt simply not asked.
[[nodiscard]] inline bool lt_takes(const problem& p) noexcept {
    return p.type != dtype::fp8_e4m3 || (p.m % 16 == 0 && p.k % 16 == 0);
}

/// cublasLtMatmulAlgoCheck's answer.
struct check_result {
    bool ok = false;
    std::size_t workspace = 0; ///< bytes the algorithm needs
    float waves = 0;           ///< wavesCount
    std::string why;           ///< status name when not ok
};

/// One of cublasLtMatmulAlgoGetHeuristic's answers, as attributes.
struct heuristic_pick {
    algo_config algo;
    std::size_t workspace = 0;
    float waves = 0;
};

class lt_backend {
public:
    virtual ~lt_backend() = default;
    /// cublasLtGetVersion(), e.g. 130400.
    [[nodiscard]] virtual std::size_t version() const = 0;
    /// Whether the device launches thread-block clusters (sm_90+): else only cluster "auto".
    [[nodiscard]] virtual bool cluster_launch() const = 0;
    /// cublasLtMatmulAlgoGetIds for the problem's types.
    virtual std::vector<std::int32_t> algo_ids(const problem& p) = 0;
    virtual algo_caps caps(const problem& p, std::int32_t algo_id) = 0;
    virtual check_result check(const problem& p, const algo_config& a) = 0;
    /// Up to `count` picks, best first, within max_workspace bytes.
    virtual std::vector<heuristic_pick> heuristic(const problem& p, int count,
                                                  std::size_t max_workspace) = 0;
};

/// The backend over the loaded cuBLASLt on the current device; throws unsupported where the
/// library is absent.
std::unique_ptr<lt_backend> make_real_backend();

/// The largest power of two (≤ 256, cudaMalloc's alignment) dividing every leading dimension
/// of a matrix in bytes: what an algorithm's CAP_MIN_ALIGNMENT_* is compared with.
std::uint32_t alignment_bytes(std::int64_t leading_dim, std::size_t elem_bytes) noexcept;

/// cublasLtEpilogue_t value of an epilogue (1 = default).
std::uint32_t lt_epilogue(epilogue e) noexcept;

} // namespace ktune::gemm::detail
