// Size checks of a .ktrace block header, made before its payload is read or decoded: a length
// field is trusted only when it fits what the writer can produce (docs/formats.md#ktrace).
#include "columns.hpp"
#include "format.hpp"

#include <algorithm>
#include <string>

namespace ktune::trace::detail {
namespace {

std::size_t stored_columns(chunk type, int minor) {
    switch (type) {
    case chunk::kernels:
        return minor == 0 ? columns_of<kernel_record>::n_v1_0 : columns_of<kernel_record>::n;
    case chunk::memcpys:
        return columns_of<memcpy_record>::n;
    case chunk::memsets:
        return columns_of<memset_record>::n;
    case chunk::syncs:
        return columns_of<sync_record>::n;
    case chunk::nvtx:
        return columns_of<nvtx_record>::n;
    default:
        return 0;
    }
}

} // namespace

std::string check_block_sizes(const chunk_header& h, int minor, std::uint64_t file_size) {
    const auto type = static_cast<chunk>(h.type);
    if (h.stored > file_size) return "claims more bytes than the file holds";
    if (type == chunk::strings) {
        // Each string is at least a u32 id and two u32 lengths.
        if (h.count > h.raw / 12)
            return "claims " + std::to_string(h.count) + " names in " + std::to_string(h.raw) +
                   " bytes";
        if (h.raw > std::max(min_text_raw, h.stored * max_text_ratio))
            return "claims " + std::to_string(h.raw) + " bytes of names from " +
                   std::to_string(h.stored) + " stored";
        return "";
    }
    const std::size_t columns = stored_columns(type, minor);
    if (columns == 0) return "is not a record block";
    if (h.count > max_block_rows)
        return "claims " + std::to_string(h.count) + " records; a block holds at most " +
               std::to_string(max_block_rows);
    // Every column value is one LEB128 varint of 1 to 10 bytes.
    const std::uint64_t least = std::uint64_t{h.count} * columns;
    if (h.raw < least || h.raw > least * max_varint_bytes)
        return "claims " + std::to_string(h.count) + " records in " + std::to_string(h.raw) +
               " bytes, which cannot hold them";
    return "";
}

} // namespace ktune::trace::detail
