#pragma once
// LEB128 varints for the store's blobs (sketches, reservoirs): small, portable, byte-exact.
#include "ktune/core/error.hpp"

#include <cstdint>
#include <span>
#include <string>

namespace ktune::store::detail {

inline void put_varint(std::string& out, std::uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}

inline std::uint64_t zigzag(std::int64_t v) {
    return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
inline std::int64_t unzigzag(std::uint64_t v) {
    return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

/// Reads varints from a blob; a truncated one throws error{input} naming `what` and the offset.
class varint_reader {
public:
    varint_reader(std::span<const std::uint8_t> blob, const char* what)
        : blob_(blob), what_(what) {}
    std::uint64_t next() {
        std::uint64_t v = 0;
        for (unsigned shift = 0; shift < 64; shift += 7) {
            if (pos_ >= blob_.size())
                throw error(error_kind::input, std::string(what_) + ": blob truncated at byte " +
                                                   std::to_string(pos_));
            const std::uint8_t b = blob_[pos_++];
            v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
            if (!(b & 0x80)) return v;
        }
        throw error(error_kind::input,
                    std::string(what_) + ": varint too long at byte " + std::to_string(pos_));
    }
    [[nodiscard]] bool done() const noexcept { return pos_ == blob_.size(); }

private:
    std::span<const std::uint8_t> blob_;
    const char* what_;
    std::size_t pos_ = 0;
};

} // namespace ktune::store::detail
