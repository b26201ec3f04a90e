// main() for the Redis shared-tier tests: they need a real redis-server; where it is not
// installed, say so and exit 77, which CTest reports as skipped (SKIP_RETURN_CODE).
#if KTUNE_CATCH_MAJOR == 3
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include "ktune/cache/shared_tier.hpp"
#include "redis_server.hpp"

#include <cstdio>

int main(int argc, char** argv) {
    if (!ktune::cache::shared_tier::supported()) {
        std::printf("SKIPPED: this ktune was built without hiredis (libhiredis-dev)\n");
        return 77;
    }
    if (cache_test::find_redis_server().empty()) {
        std::printf("SKIPPED: redis-server is not installed (apt-get install redis-server)\n");
        return 77;
    }
    return Catch::Session().run(argc, argv);
}
