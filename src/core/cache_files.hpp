#pragma once
// Small files of ktune's own caches (cubins, the recorded device query, the copy roof, a kept
// worker's pid): re-computable, so written with a rename but no fsync (a cubin per candidate
// would otherwise pay a disk flush each). Files a user asked for go through atomic_file.hpp.
#include "core/fnv1a.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace ktune::detail {

/// The whole file, or "" when it cannot be read (a cache miss).
std::string read_file(const std::filesystem::path& p);

/// Temp file (unique per process and thread) + rename: readers never see half a file, many
/// processes may share a directory. Throws error(io) naming the file.
void write_atomic(const std::filesystem::path& p, std::string_view data);

} // namespace ktune::detail
