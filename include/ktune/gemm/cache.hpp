#pragma once
// GEMM winners in ktune's cache (docs/formats.md#ktunecache--gemm-entries). The algorithm is
// stored as its attributes, keyed with the cuBLASLt version (op_version "cublasLt<version>");
// the bucket is [M, N, K, layout, epilogue]. At load an entry is re-checked with
// cublasLtMatmulAlgoCheck; an entry of another cuBLASLt version is used only when the check
// passes, else the heuristic answers.
//
//   auto e = ktune::gemm::to_cache_entry(result, ktune::cache::environment::current(), origin);
//   ktune::cache::store(ktune::cache::default_cache_path(), e);

#include "ktune/cache/entry.hpp"
#include "ktune/gemm/tune.hpp"

#include <optional>
#include <span>
#include <string_view>

namespace ktune::gemm {

inline constexpr std::string_view cache_op = "gemm";

/// The key of p tuned with cuBLASLt `lt_version` in environment env.
cache::cache_key cache_key_for(const problem& p, std::size_t lt_version,
                               const cache::environment& env);

/// The winner of a tune as a cache entry (the default's attributes when nothing beat it).
cache::entry to_cache_entry(const tune_result& r, const cache::environment& env,
                            const cache::provenance& origin);

/// Where a run-time algorithm came from.
enum class algo_source : std::uint8_t {
    cache,       ///< an entry of this cuBLASLt version, re-checked
    revalidated, ///< an entry of another cuBLASLt version that AlgoCheck still accepts
    heuristic,   ///< no usable entry: cuBLASLt's heuristic
};
std::string_view to_string(algo_source s) noexcept;

/// The entry for p: one of this cuBLASLt version first, else the newest-dated entry of another
/// version (same op, dtype, bucket, arch, protocol). `exact` says which.
std::optional<cache::entry> find_entry(std::span<const cache::entry> entries, const problem& p,
                                       std::size_t lt_version, const cache::environment& env,
                                       bool& exact);

} // namespace ktune::gemm
