#pragma once
// The one 64-bit FNV-1a of the tree: cache keys, cubin file names, config hashes, launch-work
// keys, sampling decisions and hash-map functors all fold bytes through it, so a change of the
// hash is made (and its persisted uses re-versioned) in one place.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ktune::detail {

inline constexpr std::uint64_t fnv1a_basis = 14695981039346656037ULL;
inline constexpr std::uint64_t fnv1a_prime = 1099511628211ULL;

/// FNV-1a of n bytes, continued from h.
constexpr std::uint64_t fnv1a_bytes(std::uint64_t h, const unsigned char* p,
                                    std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; ++i)
        h = (h ^ p[i]) * fnv1a_prime;
    return h;
}

inline std::uint64_t fnv1a_bytes(std::uint64_t h, const void* data, std::size_t n) noexcept {
    return fnv1a_bytes(h, static_cast<const unsigned char*>(data), n);
}

inline std::uint64_t fnv1a_bytes(std::uint64_t h, std::string_view s) noexcept {
    return fnv1a_bytes(h, s.data(), s.size());
}

/// FNV-1a of `s` continued from `h`, then a separator byte, so that ("ab","c") and ("a","bc")
/// differ: for keys built from several fields.
inline std::uint64_t fnv1a(std::uint64_t h, std::string_view s) noexcept {
    h = fnv1a_bytes(h, s);
    return (h ^ 0xffU) * fnv1a_prime;
}

} // namespace ktune::detail
