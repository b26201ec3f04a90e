#include "cache/hiredis_api.hpp"

#include "core/shared_library.hpp"

#define KTUNE_STR2(x) #x
#define KTUNE_STR(x) KTUNE_STR2(x)

namespace ktune::cache::detail {
namespace {

struct loaded_hiredis {
    ktune::detail::shared_library lib;
    hiredis_api api;
};

loaded_hiredis* load() {
    auto lib = ktune::detail::shared_library::open(
        {"libhiredis.so." KTUNE_STR(HIREDIS_SONAME)}, "hiredis (the Redis client library)",
        "Install the hiredis this ktune was built with (Debian/Ubuntu: apt-get install "
        "libhiredis" KTUNE_STR(HIREDIS_SONAME) ") or put its directory on LD_LIBRARY_PATH.");
    hiredis_api a;
    KTUNE_RESOLVE(lib, a, redisConnectWithTimeout);
    KTUNE_RESOLVE(lib, a, redisConnectUnixWithTimeout);
    KTUNE_RESOLVE(lib, a, redisSetTimeout);
    KTUNE_RESOLVE(lib, a, redisFree);
    KTUNE_RESOLVE(lib, a, redisCommandArgv);
    KTUNE_RESOLVE(lib, a, redisAppendCommandArgv);
    KTUNE_RESOLVE(lib, a, redisGetReply);
    KTUNE_RESOLVE(lib, a, freeReplyObject);
    // Never freed: the shared tier's prober thread may still hold a context at exit.
    return new loaded_hiredis{std::move(lib), a};
}

} // namespace

const hiredis_api& hiredis() {
    static const loaded_hiredis* const loaded = load();
    return loaded->api;
}

} // namespace ktune::cache::detail
