// The kv seam in a build without hiredis: --redis says so plainly instead of failing later.
#include "cache/kv_client.hpp"
#include "ktune/core/error.hpp"

namespace ktune::cache::detail {

bool kv_supported() noexcept {
    return false;
}

std::unique_ptr<kv_client> kv_connect(const kv_endpoint&, std::chrono::milliseconds) {
    throw error(error_kind::unsupported,
                "this build of ktune has no Redis support (hiredis was not found when it was "
                "configured: install libhiredis-dev and rebuild)");
}

} // namespace ktune::cache::detail
