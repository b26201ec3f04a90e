#pragma once
// hiredis, opened on first use: only the Redis shared tier (--redis) needs it, so it is no link
// dependency of ktune or of an application that links libktune (docs/perf/startup.md).
//
//   const auto& r = ktune::cache::detail::hiredis();   // throws where it is absent
//   redisContext* c = r.redisConnectWithTimeout(host, port, tv);
#include <hiredis/hiredis.h>

namespace ktune::cache::detail {

/// The hiredis entry points the kv seam calls, named as in hiredis.h.
struct hiredis_api {
    decltype(&::redisConnectWithTimeout) redisConnectWithTimeout = nullptr;
    decltype(&::redisConnectUnixWithTimeout) redisConnectUnixWithTimeout = nullptr;
    decltype(&::redisSetTimeout) redisSetTimeout = nullptr;
    decltype(&::redisFree) redisFree = nullptr;
    decltype(&::redisCommandArgv) redisCommandArgv = nullptr;
    decltype(&::redisAppendCommandArgv) redisAppendCommandArgv = nullptr;
    decltype(&::redisGetReply) redisGetReply = nullptr;
    decltype(&::freeReplyObject) freeReplyObject = nullptr;
};

/// Loads the hiredis whose headers this build compiled against (its soname, HIREDIS_SONAME: the
/// structs ktune reads change between sonames) once per process; throws error_kind::unsupported
/// naming the library and how to install it where it or a symbol is missing.
const hiredis_api& hiredis();

} // namespace ktune::cache::detail
