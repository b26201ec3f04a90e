#pragma once
// One GEMM algorithm: a cuBLASLt algorithm, as its configuration attributes
// (cublasLtMatmulAlgoConfigAttributes_t) rather than the opaque 64-byte cublasLtMatmulAlgo_t
// (the attributes survive a library upgrade: they are re-checked with cublasLtMatmulAlgoCheck,
// the blob's layout does not), or a config of ktune's own Hopper GEMM template
// (provider::ktune_sm90, docs/perf/gemm.md#hopper-template), of its mma.sync form for other
// GPUs (provider::ktune_mma, docs/perf/gemm.md#mma-fallback) or of its GEMV for decode GEMMs of
// at most 8 rows (provider::ktune_gemv, docs/perf/gemm.md#gemv-decode).
//
//   ktune::gemm::algo_config a{.algo_id = 66, .tile = 20, .stages = 18};
//   ktune::config c = ktune::gemm::to_config(a);     // what the cache stores
//   assert(ktune::gemm::algo_from_config(c) == a);

#include "ktune/core/config.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace ktune::gemm {

/// Who runs the GEMM: cuBLASLt, or ktune's own kernels (compiled by NVRTC): the Hopper template
/// (sm_90a), the mma.sync form (sm_80 and later) or the GEMV (sm_80 and later, M <= 8).
enum class provider : std::uint8_t { cublaslt, ktune_sm90, ktune_mma, ktune_gemv };

/// A config of ktune's Hopper template (docs/perf/gemm.md#hopper-template); all 0 for cuBLASLt.
struct sm90_params {
    std::int32_t bn = 0;        ///< tile columns of D's transpose (wgmma N)
    std::int32_t stages = 0;    ///< shared-memory ring depth
    std::int32_t consumers = 0; ///< consumer warpgroups (64 tile rows each)
    std::int32_t group = 0;     ///< raster group
    std::int32_t cluster = 0;   ///< blocks sharing a slab by TMA multicast
    std::int32_t epi_parts = 0; ///< epilogue parts deferred into the next tile
    std::int32_t tma_store = 0; ///< 1: D staged in shared memory and stored by the TMA
    std::int32_t splits = 1;    ///< slices of K, summed through a workspace (split-K)
    /// 1: the cluster's blocks share B's slab (a decode GEMM's weights) over neighbouring column
    /// tiles of D's transpose, each loading its own A; 0: they share A's over row tiles
    std::int32_t cluster_b = 0;
    /// 1: A (a decode GEMM's tokens) is the tile's wgmma M side and B's rows its columns, so a
    /// weight tile is any multiple of 8 rows (docs/perf/gemm.md#swap-ab); 0: B's rows are M
    std::int32_t swap_ab = 0;
    bool operator==(const sm90_params&) const = default;
};

/// A config of ktune's mma.sync form (docs/perf/gemm.md#mma-fallback); all 0 otherwise.
struct mma_params {
    std::int32_t bm = 0;      ///< tile rows of D's transpose
    std::int32_t bn = 0;      ///< tile columns
    std::int32_t bk = 0;      ///< K a stage holds
    std::int32_t warps_m = 0; ///< warps along the rows
    std::int32_t warps_n = 0; ///< warps along the columns
    std::int32_t stages = 0;  ///< cp.async ring depth
    bool operator==(const mma_params&) const = default;
};

/// A config of ktune's GEMV (docs/perf/gemm.md#gemv-decode); all 0 otherwise.
struct gemv_params {
    std::int32_t form = 0;   ///< 1: a warp a row of B; 2: a block a row, its warps splitting K
    std::int32_t unroll = 0; ///< 16-byte loads of B in flight a thread
    std::int32_t blocks = 0; ///< blocks of 256 threads a SM in the grid
    bool operator==(const gemv_params&) const = default;
};

struct algo_config {
    std::int32_t algo_id = 0;      ///< CUBLASLT_ALGO_CONFIG_ID
    std::uint32_t tile = 0;        ///< CUBLASLT_ALGO_CONFIG_TILE_ID (cublasLtMatmulTile_t)
    std::uint32_t stages = 0;      ///< CUBLASLT_ALGO_CONFIG_STAGES_ID
    std::uint16_t inner_shape = 0; ///< CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID
    std::uint16_t cluster = 0;     ///< CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID (0: auto)
    std::int32_t splitk = 1;       ///< CUBLASLT_ALGO_CONFIG_SPLITK_NUM
    std::uint32_t reduction = 0;   ///< CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME
    std::uint32_t swizzle = 0;     ///< CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING
    std::uint32_t custom = 0;      ///< CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION
    /// 1: not a cuBLASLt attribute but ktune's padded-K form: A and B are copied with K rounded
    /// up to a multiple of 8 (zeros) and the algorithm runs on that problem
    /// (docs/perf/gemm.md#padded-k).
    std::uint8_t pad_k = 0;
    gemm::provider provider = provider::cublaslt;
    sm90_params sm90{}; ///< provider::ktune_sm90 only
    mma_params mma{};   ///< provider::ktune_mma only
    gemv_params gemv{}; ///< provider::ktune_gemv only
    bool operator==(const algo_config&) const = default;
};

/// The attributes as a ktune::config ("algo", "tile", "stages", "inner", "cluster", "splitk",
/// "reduction", "swizzle", "custom"; all integers; "pad_k" 1 only in the padded-K form, so
/// entries written before it read as unpadded). ktune's template: "provider": "ktune_sm90" and
/// "bn", "stages", "consumers", "group", "cluster", "epi_parts", "tma_store" instead ("splits"
/// where it splits K, "cluster_b" 1 where its cluster shares B, "swap_ab" 1 where A is the M side);
/// its mma.sync form: "provider": "ktune_mma" and "bm", "bn", "bk", "warps_m", "warps_n", "stages";
/// its GEMV: "provider": "ktune_gemv" and "form", "unroll", "blocks" (docs/formats.md).
config to_config(const algo_config& a);
/// Throws ktune::error(input) naming an attribute that is missing or not an integer in range,
/// or a provider it does not know.
algo_config algo_from_config(const config& c);
/// "algo 66 tile 20 stages 18 cluster 0 splitk 1 red 0 swz 0 custom 0 inner 0" (+ " pad_k");
/// "ktune sm90 bn256 s3 c2 g8 x1 e0 t1" for ktune's template ("x2b": a cluster sharing B), "ktune
/// mma bm128 bn128 bk32 w2x2 s3" for its mma.sync form, "ktune gemv block u2 b8" for its GEMV.
std::string describe(const algo_config& a);
/// "cublaslt" | "ktune_sm90" | "ktune_mma" | "ktune_gemv".
std::string_view to_string(provider p) noexcept;

} // namespace ktune::gemm
