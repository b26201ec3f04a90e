#pragma once
// Column codec of .ktrace blocks. Each record kind is viewed as N unsigned columns; column 0 is
// the start time, column 1 the end time. Encoding is column by column: start as the zig-zag
// delta to the previous start, end as the zig-zag (end - start), every other column as the
// zig-zag delta to the previous row's value, each written as a LEB128 varint. Launch shapes,
// devices and streams repeat, so most deltas are 0 and one byte; zstd then squeezes the runs.
// This is what brings a kernel record from ~90 bytes in memory to ~10 on disk.

#include "ktune/trace/records.hpp"

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ktune::trace::detail {

template <class T>
struct columns_of;

template <>
struct columns_of<kernel_record> {
    static constexpr std::size_t n = 25;
    static constexpr std::size_t n_v1_0 = 23; ///< format 1.0 had no NVTX columns
    static void to(const kernel_record& r, std::uint64_t* c) {
        c[0] = r.start_ns, c[1] = r.end_ns, c[2] = r.name_id, c[3] = r.device, c[4] = r.context;
        c[5] = r.stream, c[6] = r.correlation, c[7] = r.graph_id, c[8] = r.graph_node_id;
        c[9] = r.grid.x, c[10] = r.grid.y, c[11] = r.grid.z, c[12] = r.block.x;
        c[13] = r.block.y, c[14] = r.block.z, c[15] = r.cluster.x, c[16] = r.cluster.y;
        c[17] = r.cluster.z, c[18] = r.registers, c[19] = r.static_smem, c[20] = r.dynamic_smem;
        c[21] = r.local_mem, c[22] = r.flags, c[23] = r.nvtx_range, c[24] = r.nvtx_path;
    }
    static void from(const std::uint64_t* c, kernel_record& r) {
        using u32 = std::uint32_t;
        r.start_ns = c[0], r.end_ns = c[1], r.name_id = u32(c[2]), r.device = u32(c[3]);
        r.context = u32(c[4]), r.stream = u32(c[5]), r.correlation = u32(c[6]);
        r.graph_id = u32(c[7]), r.graph_node_id = c[8];
        r.grid = {u32(c[9]), u32(c[10]), u32(c[11])};
        r.block = {u32(c[12]), u32(c[13]), u32(c[14])};
        r.cluster = {u32(c[15]), u32(c[16]), u32(c[17])};
        r.registers = u32(c[18]), r.static_smem = u32(c[19]), r.dynamic_smem = u32(c[20]);
        r.local_mem = u32(c[21]), r.flags = std::uint8_t(c[22]);
        r.nvtx_range = u32(c[23]), r.nvtx_path = u32(c[24]);
    }
};

template <>
struct columns_of<memcpy_record> {
    static constexpr std::size_t n = 12;
    static void to(const memcpy_record& r, std::uint64_t* c) {
        c[0] = r.start_ns, c[1] = r.end_ns, c[2] = r.bytes, c[3] = r.device, c[4] = r.context;
        c[5] = r.stream, c[6] = r.correlation, c[7] = r.graph_id, c[8] = r.copy_kind;
        c[9] = r.src_kind, c[10] = r.dst_kind, c[11] = r.flags;
    }
    static void from(const std::uint64_t* c, memcpy_record& r) {
        using u32 = std::uint32_t;
        using u8 = std::uint8_t;
        r.start_ns = c[0], r.end_ns = c[1], r.bytes = c[2], r.device = u32(c[3]);
        r.context = u32(c[4]), r.stream = u32(c[5]), r.correlation = u32(c[6]);
        r.graph_id = u32(c[7]), r.copy_kind = u8(c[8]), r.src_kind = u8(c[9]);
        r.dst_kind = u8(c[10]), r.flags = u8(c[11]);
    }
};

template <>
struct columns_of<memset_record> {
    static constexpr std::size_t n = 10;
    static void to(const memset_record& r, std::uint64_t* c) {
        c[0] = r.start_ns, c[1] = r.end_ns, c[2] = r.bytes, c[3] = r.device, c[4] = r.context;
        c[5] = r.stream, c[6] = r.correlation, c[7] = r.graph_id, c[8] = r.value, c[9] = r.flags;
    }
    static void from(const std::uint64_t* c, memset_record& r) {
        using u32 = std::uint32_t;
        r.start_ns = c[0], r.end_ns = c[1], r.bytes = c[2], r.device = u32(c[3]);
        r.context = u32(c[4]), r.stream = u32(c[5]), r.correlation = u32(c[6]);
        r.graph_id = u32(c[7]), r.value = u32(c[8]), r.flags = std::uint8_t(c[9]);
    }
};

template <>
struct columns_of<sync_record> {
    static constexpr std::size_t n = 7;
    static void to(const sync_record& r, std::uint64_t* c) {
        c[0] = r.start_ns, c[1] = r.end_ns, c[2] = r.context, c[3] = r.stream;
        c[4] = r.correlation, c[5] = r.type, c[6] = r.flags;
    }
    static void from(const std::uint64_t* c, sync_record& r) {
        using u32 = std::uint32_t;
        r.start_ns = c[0], r.end_ns = c[1], r.context = u32(c[2]), r.stream = u32(c[3]);
        r.correlation = u32(c[4]), r.type = std::uint8_t(c[5]), r.flags = std::uint8_t(c[6]);
    }
};

template <>
struct columns_of<nvtx_record> {
    static constexpr std::size_t n = 6;
    static void to(const nvtx_record& r, std::uint64_t* c) {
        c[0] = r.start_ns, c[1] = r.end_ns, c[2] = r.name_id, c[3] = r.domain_id, c[4] = r.id;
        c[5] = r.flags;
    }
    static void from(const std::uint64_t* c, nvtx_record& r) {
        using u32 = std::uint32_t;
        r.start_ns = c[0], r.end_ns = c[1], r.name_id = u32(c[2]), r.domain_id = u32(c[3]);
        r.id = u32(c[4]), r.flags = std::uint8_t(c[5]);
    }
};

inline void put_varint(std::string& out, std::uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<char>(v | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}

inline std::uint64_t zigzag(std::uint64_t a, std::uint64_t b) { // encodes a - b
    const auto d = static_cast<std::int64_t>(a - b);
    return (static_cast<std::uint64_t>(d) << 1) ^ static_cast<std::uint64_t>(d >> 63);
}
inline std::uint64_t unzigzag(std::uint64_t z, std::uint64_t b) { // a from zigzag(a, b)
    const auto d = static_cast<std::int64_t>((z >> 1) ^ (~(z & 1) + 1));
    return b + static_cast<std::uint64_t>(d);
}

/// Appends the encoded columns of `rows` to `out`.
template <class T>
void encode_columns(std::span<const T> rows, std::string& out,
                    std::vector<std::uint64_t>& scratch) {
    constexpr std::size_t n = columns_of<T>::n;
    const std::size_t count = rows.size();
    scratch.resize(count * n);
    std::array<std::uint64_t, n> row{};
    for (std::size_t i = 0; i < count; ++i) {
        columns_of<T>::to(rows[i], row.data());
        for (std::size_t c = 0; c < n; ++c)
            scratch[c * count + i] = row[c];
    }
    out.reserve(out.size() + count * n);
    // Column-major: every row of column 0, then column 1, … so that zstd sees long runs.
    for (std::size_t c = 0; c < n; ++c) {
        const std::uint64_t* col = scratch.data() + c * count;
        std::uint64_t prev = 0;
        for (std::size_t i = 0; i < count; ++i) {
            put_varint(out, c == 1 ? zigzag(col[i], scratch[i]) : zigzag(col[i], prev));
            prev = col[i];
        }
    }
}

/// Decodes `count` rows; false when the bytes run out or are left over (a damaged block).
/// `stored` columns are in the block (an older minor version stores fewer: the rest read 0).
template <class T>
bool decode_columns(std::span<const std::uint8_t> in, std::size_t count, std::vector<T>& rows,
                    std::vector<std::uint64_t>& scratch, std::size_t stored = columns_of<T>::n) {
    constexpr std::size_t n = columns_of<T>::n;
    if (stored > n) return false;
    scratch.assign(count * n, 0);
    const std::uint8_t* p = in.data();
    const std::uint8_t* end = p + in.size();
    for (std::size_t c = 0; c < stored; ++c) {
        std::uint64_t prev = 0;
        std::uint64_t* col = scratch.data() + c * count;
        for (std::size_t i = 0; i < count; ++i) {
            std::uint64_t v = 0;
            unsigned shift = 0;
            for (;;) {
                if (p == end || shift > 63) return false;
                const std::uint8_t b = *p++;
                v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
                if (!(b & 0x80)) break;
                shift += 7;
            }
            col[i] = c == 1 ? unzigzag(v, scratch[i]) : unzigzag(v, prev);
            prev = col[i];
        }
    }
    if (p != end) return false;
    rows.resize(count);
    std::array<std::uint64_t, n> row{};
    for (std::size_t i = 0; i < count; ++i) {
        for (std::size_t c = 0; c < n; ++c)
            row[c] = scratch[c * count + i];
        columns_of<T>::from(row.data(), rows[i]);
    }
    return true;
}

} // namespace ktune::trace::detail
