#pragma once
// The identity of a tuned config. Everything that can change which config is fastest is part of
// the key, so a new toolkit, driver, GPU arch, op source or measurement protocol never hits an
// entry measured under the old one.
//
//   ktune::cache::cache_key k{"gemm", "v3", "fp16", {4096, 4096}, "sm_90", 13000, 580, 1};
//   ktune::cache::prepared_key pk(k); // hash once, look up many times

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::cache {

/// Measurement protocol ktune's tuner uses now; bump it when timing rules change.
inline constexpr int current_protocol = 1;

struct cache_key {
    std::string op;                   ///< registered op name, e.g. "gemm"
    std::string op_version;           ///< op version or hash of its kernel source
    std::string dtype;                ///< "fp32", "fp16", …
    std::vector<std::int64_t> bucket; ///< shape after the op's bucket policy
    std::string arch;                 ///< "sm_90"
    int toolkit = 0;                  ///< CUDA toolkit version, e.g. 13000
    int driver_major = 0;             ///< e.g. 580; 0 = unknown
    int protocol = current_protocol;  ///< measurement-protocol version

    bool operator==(const cache_key&) const = default;
    /// "gemm@v3 fp16 4096x4096 sm_90 cuda13.0 drv580 p1": stable, for people and sorting.
    [[nodiscard]] std::string to_string() const;
};

/// Strict weak order used for deterministic file order: op, op_version, dtype, arch, toolkit,
/// driver, protocol, then bucket.
bool key_less(const cache_key& a, const cache_key& b) noexcept;

/// 64-bit hash of every field.
std::uint64_t key_hash(const cache_key& k) noexcept;
/// Hash of every field except the bucket: the "family" searched by the nearest-bucket tier.
std::uint64_t family_hash(const cache_key& k) noexcept;
/// True when a and b differ at most in their bucket.
bool same_family(const cache_key& a, const cache_key& b) noexcept;

/// A key with its hashes computed once, for the lookup fast path (no hashing, no strings built).
struct prepared_key {
    cache_key key;
    std::uint64_t hash = 0;
    std::uint64_t family = 0;

    prepared_key() = default;
    explicit prepared_key(cache_key k)
        : key(std::move(k)), hash(key_hash(key)), family(family_hash(key)) {}
};

/// Where a key's environment fields come from: the GPU, toolkit and driver of this process.
struct environment {
    std::string arch;     ///< "sm_90"
    int toolkit = 0;      ///< CUDA runtime version, e.g. 13000
    int driver_major = 0; ///< 0 where unknown
    int protocol = current_protocol;
    bool operator==(const environment&) const = default;

    /// The arch of an environment with no usable GPU: no tuned entry carries it, so every
    /// lookup answers the caller's default (tier `default`), which the caller can show.
    static constexpr std::string_view unknown_arch = "unknown";
    /// False where current() found no GPU (arch is unknown_arch).
    [[nodiscard]] bool has_gpu() const noexcept { return arch != unknown_arch; }

    /// Queries device `ordinal`. Without any usable GPU it returns arch unknown_arch, the CUDA
    /// runtime's version and driver 0, so an application still starts and runs its defaults;
    /// throws ktune::error(no_device) only for an ordinal beyond the GPUs that exist.
    static environment current(int ordinal = 0);
};

} // namespace ktune::cache
