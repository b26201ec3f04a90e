#include "cache/hiredis_api.hpp"

#include "core/shared_library.hpp"

namespace ktune::cache::detail {
namespace {

void resolve(const ktune::detail::shared_library& lib, hiredis_api& a) {
    KTUNE_RESOLVE(lib, a, redisConnectWithTimeout);
    KTUNE_RESOLVE(lib, a, redisConnectUnixWithTimeout);
    KTUNE_RESOLVE(lib, a, redisSetTimeout);
    KTUNE_RESOLVE(lib, a, redisFree);
    KTUNE_RESOLVE(lib, a, redisCommandArgv);
    KTUNE_RESOLVE(lib, a, redisAppendCommandArgv);
    KTUNE_RESOLVE(lib, a, redisGetReply);
    KTUNE_RESOLVE(lib, a, freeReplyObject);
}

} // namespace

const hiredis_api& hiredis() {
    return ktune::detail::load_once<hiredis_api>(
        {"libhiredis.so." KTUNE_STRINGIFY(HIREDIS_SONAME)}, "hiredis (the Redis client library)",
        "Install the hiredis this ktune was built with (Debian/Ubuntu: apt-get install "
        "libhiredis" KTUNE_STRINGIFY(HIREDIS_SONAME) ") or put its directory on LD_LIBRARY_PATH.",
        resolve);
}

} // namespace ktune::cache::detail
