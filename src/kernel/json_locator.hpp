#pragma once
// Where each value of a JSON text starts, by path, so a reader that works on the parsed value
// (nlohmann, which keeps no positions) can still say file:line:column for any member.
// Private to src/kernel.
//
//   json_locator loc(text);                     // text already accepted by a JSON parser
//   std::size_t at = loc.value_at("/parameters/TILE_M/default");
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace ktune::kernel::detail {

/// A path step as it appears in a locator path: '~' and '/' escaped as in RFC 6901.
std::string path_step(std::string_view key);

class json_locator {
public:
    /// Scans syntactically valid JSON (the parser has accepted it); on malformed text it stops
    /// early and leaves the rest unlocated (lookups then fall back to a parent).
    explicit json_locator(std::string_view text);
    /// Byte offset of the value at `path` ("" the root, "/a/0/b"); falls back to the nearest
    /// located parent, then 0.
    [[nodiscard]] std::size_t value_at(const std::string& path) const;
    /// Byte offset of the member name of `path` (its value's when it has none: array items).
    [[nodiscard]] std::size_t key_at(const std::string& path) const;
    /// A member name given twice in one object (the parser keeps one silently): its path and
    /// the offset of the second occurrence; empty when there is none.
    [[nodiscard]] const std::pair<std::string, std::size_t>& first_duplicate() const noexcept {
        return duplicate_;
    }

private:
    std::pair<std::string, std::size_t> duplicate_{"", std::string::npos};
    std::unordered_map<std::string, std::size_t> values_;
    std::unordered_map<std::string, std::size_t> keys_;
};

} // namespace ktune::kernel::detail
