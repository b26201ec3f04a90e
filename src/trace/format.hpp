#pragma once
// On-disk constants of the .ktrace container (see include/ktune/trace/trace_file.hpp).
#include <cstdint>
#include <cstring>
#include <string>

namespace ktune::trace::detail {

inline constexpr char file_magic[8] = {'K', 'T', 'R', 'A', 'C', 'E', '\0', '\0'};
inline constexpr std::size_t file_prefix_bytes = 16;

enum class chunk : std::uint32_t {
    header = 1,  ///< JSON environment (start)
    strings = 2, ///< zstd: repeated {u32 id, u32 len, mangled, u32 len, demangled}
    kernels = 3,
    memcpys = 4,
    memsets = 5,
    syncs = 6,
    nvtx = 7,
    trailer = 8, ///< JSON environment (end: GPUs, driver, clocks)
    footer = 9,  ///< JSON counters; its presence means the recording ended cleanly
    /// After the footer (appended once the trace is complete): zstd of a ktune.kernel_metrics
    /// JSON document, the range profiler's metrics joined to their launches. Readers that stop
    /// at the footer never see it, so older ktune versions still read such a trace.
    metrics = 10,
};

struct chunk_header {
    std::uint32_t type = 0;
    std::uint32_t count = 0;  ///< records (or strings) in the chunk
    std::uint64_t stored = 0; ///< payload bytes in the file
    std::uint64_t raw = 0;    ///< payload bytes after decompression
};
static_assert(sizeof(chunk_header) == 24);

/// Reader limits (docs/formats.md#ktrace): every size in a chunk header is checked against
/// them and against the bytes left in the file before anything is allocated, so a damaged or
/// hostile file costs at most a few tens of MiB, never what its length fields claim.
inline constexpr std::uint32_t max_block_rows = 1u << 16; ///< the writer's rows per block
inline constexpr std::uint64_t max_varint_bytes = 10;     ///< LEB128 of a u64
/// Text chunks (strings, metrics): decompressed size at most this multiple of the stored size
/// (JSON and names compress 5-50x) or `min_text_raw`, whichever is larger.
inline constexpr std::uint64_t max_text_ratio = 256;
inline constexpr std::uint64_t min_text_raw = std::uint64_t{1} << 20;
inline constexpr std::uint64_t max_json_chunk = std::uint64_t{1} << 24; ///< header, trailer, footer

/// Why the sizes in a strings or record block's header `h` cannot be right for a file of
/// `file_size` bytes written with minor version `minor`; "" when they can. Checked before the
/// payload is read or anything is allocated for it.
std::string check_block_sizes(const chunk_header& h, int minor, std::uint64_t file_size);

inline void put_u32(char* p, std::uint32_t v) {
    std::memcpy(p, &v, 4);
}
inline std::uint32_t get_u32(const unsigned char* p) {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

} // namespace ktune::trace::detail
