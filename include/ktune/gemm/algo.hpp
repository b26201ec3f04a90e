#pragma once
// One cuBLASLt algorithm, as its configuration attributes (cublasLtMatmulAlgoConfigAttributes_t)
// rather than the opaque 64-byte cublasLtMatmulAlgo_t: the attributes survive a library
// upgrade (they are re-checked with cublasLtMatmulAlgoCheck), the blob's layout does not.
//
//   ktune::gemm::algo_config a{.algo_id = 66, .tile = 20, .stages = 18};
//   ktune::config c = ktune::gemm::to_config(a);     // what the cache stores
//   assert(ktune::gemm::algo_from_config(c) == a);

#include "ktune/core/config.hpp"

#include <cstdint>
#include <string>

namespace ktune::gemm {

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
    bool operator==(const algo_config&) const = default;
};

/// The attributes as a ktune::config ("algo", "tile", "stages", "inner", "cluster", "splitk",
/// "reduction", "swizzle", "custom"; all integers; "pad_k" 1 only in the padded-K form, so
/// entries written before it read as unpadded).
config to_config(const algo_config& a);
/// Throws ktune::error(input) naming an attribute that is missing or not an integer in range.
algo_config algo_from_config(const config& c);
/// "algo 66 tile 20 stages 18 cluster 0 splitk 1 red 0 swz 0 custom 0 inner 0" (+ " pad_k").
std::string describe(const algo_config& a);

} // namespace ktune::gemm
