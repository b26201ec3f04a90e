#pragma once
// ktune's own version, as recorded in every file it writes.
#include <string_view>

namespace ktune {
std::string_view version() noexcept; ///< "0.1.0"
} // namespace ktune
