// The Redis URL forms and the versioned, content-hashed key (no server needed).
#include "cache/kv_client.hpp"
#include "cache_test_util.hpp"
#include "catch.hpp"
#include "ktune/cache/shared_tier.hpp"
#include "ktune/core/error.hpp"

using ktune::cache::detail::kv_endpoint;
using ktune::cache::detail::parse_redis_url;

TEST_CASE("redis URLs: host, port, db and unix sockets") {
    CHECK(parse_redis_url("redis://cache-host") == kv_endpoint{"cache-host", 6379, "", 0});
    CHECK(parse_redis_url("redis://10.0.0.5:7000/3") == kv_endpoint{"10.0.0.5", 7000, "", 3});
    CHECK(parse_redis_url("redis://h:7000/") == kv_endpoint{"h", 7000, "", 0});
    CHECK(parse_redis_url("unix:///run/redis.sock") == kv_endpoint{"", 6379, "/run/redis.sock", 0});
    CHECK(parse_redis_url("unix:///run/redis.sock?db=2") ==
          kv_endpoint{"", 6379, "/run/redis.sock", 2});
    for (const char* bad :
         {"", "http://h", "redis://", "redis://:80", "redis://h:0", "redis://h:99999",
          "redis://h:x", "redis://h/x", "unix://relative", "unix:///s?db=-1"}) {
        INFO(bad);
        CHECK_THROWS_AS(parse_redis_url(bad), ktune::error);
    }
}

TEST_CASE("the Redis key is versioned and follows every key field") {
    const auto k = cache_test::key({4096, 4096});
    const std::string s = ktune::cache::shared_key(k);
    CHECK(s.rfind("ktune:cache:1:", 0) == 0);
    CHECK(s.size() == std::string("ktune:cache:1:").size() + 16);
    auto other = k;
    other.driver_major = 581;
    CHECK(ktune::cache::shared_key(other) != s);
    CHECK(ktune::cache::shared_key(k) == s); // stable
}

TEST_CASE("a bad --redis URL is a usage error naming the forms") {
    try {
        ktune::cache::shared_tier t({.url = "localhost:6379"});
        FAIL("accepted");
    } catch (const ktune::error& e) {
        CHECK(e.kind() == ktune::error_kind::usage);
        CHECK(std::string(e.what()).find("redis://host:port/db") != std::string::npos);
    }
}
