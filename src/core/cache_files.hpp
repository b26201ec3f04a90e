#pragma once
// Small files of ktune's own caches (cubins, the recorded device query, the copy roof, a kept
// worker's pid): re-computable, so written with a rename but no fsync (a cubin per candidate
// would otherwise pay a disk flush each). Files a user asked for go through atomic_file.hpp.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace ktune::detail {

/// 64-bit FNV-1a of `s` continued from `h`, then a separator byte, so that ("ab","c") and
/// ("a","bc") differ. Start from fnv1a_basis.
inline constexpr std::uint64_t fnv1a_basis = 14695981039346656037ULL;
std::uint64_t fnv1a(std::uint64_t h, std::string_view s);

/// The whole file, or "" when it cannot be read (a cache miss).
std::string read_file(const std::filesystem::path& p);

/// Temp file (unique per process and thread) + rename: readers never see half a file, many
/// processes may share a directory. Throws error(io) naming the file.
void write_atomic(const std::filesystem::path& p, std::string_view data);

} // namespace ktune::detail
