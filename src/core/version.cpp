#include "ktune/core/version.hpp"

namespace ktune {
std::string_view version() noexcept {
    return KTUNE_VERSION_STRING;
}
} // namespace ktune
