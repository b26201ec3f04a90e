#pragma once
// Byte offset -> "line:column" (both from 1), which editors jump to: the one place every
// reader of a text file turns a position into a message.
//
//   throw error(error_kind::input, path + ":" + ktune::detail::line_column(text, at) + ": ...");
#include <cstddef>
#include <string>
#include <string_view>

namespace ktune::detail {

struct text_position {
    std::size_t line = 1;
    std::size_t column = 1;
};

/// Position of the byte at 0-based `offset` (clamped to the text's end).
inline text_position position_of(std::string_view text, std::size_t offset) noexcept {
    text_position p;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++p.line;
            p.column = 1;
        } else {
            ++p.column;
        }
    }
    return p;
}

inline std::string line_column(std::string_view text, std::size_t offset) {
    const text_position p = position_of(text, offset);
    return std::to_string(p.line) + ":" + std::to_string(p.column);
}

} // namespace ktune::detail
