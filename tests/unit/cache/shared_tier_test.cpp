// The Redis shared tier against a real redis-server on a temp unix socket: read-through,
// write-through, the tie rule in Redis, TTL, push/pull, untrusted values, 16 writers, and
// fail-open with a bounded wait and a back-off when the server dies or hangs.
#include "cache/cache_json.hpp"
#include "cache/kv_client.hpp"
#include "cache_test_util.hpp"
#include "catch.hpp"
#include "ktune/cache/shared_tier.hpp"
#include "ktune/core/error.hpp"
#include "redis_server.hpp"

#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace ktune::cache;
using namespace std::chrono_literals;
using cache_test::key;
using cache_test::make;

namespace {

shared_tier tier_for(const cache_test::redis_server& r, std::chrono::milliseconds retry = 200ms) {
    return shared_tier({.url = r.url(), .timeout = 50ms, .retry_first = retry});
}

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

TEST_CASE("an entry put into Redis comes back by its key; an absent key is a miss") {
    cache_test::redis_server r;
    shared_tier t = tier_for(r);
    const entry e = make(key({4096, 4096}), 128, 10.0);
    CHECK(t.put(std::span<const entry>(&e, 1)));
    const auto got = t.get(e.key);
    REQUIRE(got.has_value());
    CHECK(*got == e);
    CHECK_FALSE(t.get(key({1, 1})).has_value());
    CHECK(t.stats().hits == 1);
    CHECK(t.stats().misses == 1);
}

TEST_CASE("Redis keeps the better entry of a key (the file's tie rule)") {
    cache_test::redis_server r;
    shared_tier t = tier_for(r);
    const entry fast = make(key({8}), 1, 5.0), slow = make(key({8}), 2, 9.0);
    t.put(std::span<const entry>(&fast, 1));
    CHECK(t.push(std::span<const entry>(&slow, 1)) == 0);
    CHECK(t.get(key({8}))->cfg.get<int>("block") == 1);
    const entry faster = make(key({8}), 3, 2.0);
    CHECK(t.push(std::span<const entry>(&faster, 1)) == 1);
    CHECK(t.get(key({8}))->cfg.get<int>("block") == 3);
}

TEST_CASE("a local miss reads through Redis and keeps the entry in the local file") {
    cache_test::redis_server r;
    cache_test::temp_dir dir;
    const auto file = dir.path / "cache.json";
    shared_tier t = tier_for(r);
    const entry e = make(key({64}), 7, 3.0);
    t.put(std::span<const entry>(&e, 1));
    const auto got = lookup_through(file, cache_index::load(file), t, prepared_key(e.key));
    CHECK(got.tier == lookup_tier::exact);
    CHECK(got.from_shared);
    REQUIRE(got.hit.has_value());
    CHECK(*got.hit == e);
    const auto again = lookup_through(file, cache_index::load(file), t, prepared_key(e.key));
    CHECK(again.tier == lookup_tier::exact);
    CHECK_FALSE(again.from_shared); // answered by the file now
}

TEST_CASE("a stored winner goes to the file and to Redis") {
    cache_test::redis_server r;
    cache_test::temp_dir dir;
    shared_tier t = tier_for(r);
    const entry e = make(key({32}), 4, 1.5);
    store_through(dir.path / "a.json", t, std::span<const entry>(&e, 1));
    CHECK(cache_index::load(dir.path / "a.json").size() == 1);
    CHECK(t.get(e.key) == e);
}

TEST_CASE("push then pull carries every entry to another machine's file") {
    cache_test::redis_server r;
    cache_test::temp_dir dir;
    std::vector<entry> es;
    for (int i = 0; i < 2500; ++i) // several MGET / SET batches
        es.push_back(make(key({i}), i, 1.0 + i));
    shared_tier t = tier_for(r);
    CHECK(t.push(es) == es.size());
    const auto pulled = t.pull();
    CHECK(merge(pulled) == merge(es));
}

TEST_CASE("entries expire after the TTL") {
    cache_test::redis_server r;
    shared_tier t({.url = r.url(), .ttl = 1s});
    const entry e = make(key({2}), 2, 1.0);
    t.put(std::span<const entry>(&e, 1));
    CHECK(t.get(e.key).has_value());
    std::this_thread::sleep_for(1100ms);
    CHECK_FALSE(t.get(e.key).has_value());
}

TEST_CASE("a value that is not a valid entry for its key is never used") {
    cache_test::redis_server r;
    auto raw = ktune::cache::detail::kv_connect(ktune::cache::detail::parse_redis_url(r.url()), 1s);
    const entry e = make(key({5}), 5, 1.0);
    const entry other = make(key({6}), 6, 1.0);
    std::string other_line;
    ktune::cache::detail::append_entry_json(other_line, other);
    raw->set({{shared_key(e.key), "{\"op\": 12"}, {shared_key(key({7})), other_line}}, 60s);
    shared_tier t = tier_for(r);
    CHECK_FALSE(t.get(e.key).has_value());    // not JSON
    CHECK_FALSE(t.get(key({7})).has_value()); // an entry, but for another key
    CHECK(t.pull().empty());
    CHECK(t.stats().rejected == 4);
}

TEST_CASE("16 processes writing at once lose nothing") {
    cache_test::redis_server r;
    constexpr int procs = 16, per = 50;
    std::vector<pid_t> kids;
    for (int p = 0; p < procs; ++p) {
        const pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            shared_tier t = tier_for(r);
            for (int i = 0; i < per; ++i) {
                const entry e = make(key({p, i}), i, 1.0);
                if (t.push(std::span<const entry>(&e, 1)) != 1) ::_exit(1);
            }
            ::_exit(0);
        }
        kids.push_back(pid);
    }
    for (const pid_t pid : kids) {
        int status = 0;
        REQUIRE(::waitpid(pid, &status, 0) == pid);
        CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
    }
    shared_tier t = tier_for(r);
    CHECK(t.pull().size() == static_cast<std::size_t>(procs * per));
}

TEST_CASE("Redis killed: calls fail open at once and the tier reconnects once it is back") {
    cache_test::redis_server r;
    cache_test::temp_dir dir;
    const auto file = dir.path / "cache.json";
    const entry local = make(key({1}), 1, 1.0), shared = make(key({2}), 2, 1.0);
    store(file, local);
    shared_tier t = tier_for(r, 300ms);
    t.put(std::span<const entry>(&shared, 1));
    r.stop(SIGKILL);

    auto t0 = std::chrono::steady_clock::now();
    CHECK_FALSE(t.get(key({9})).has_value()); // the failure, paid once
    CHECK(ms_since(t0) < 1000);
    CHECK(t.stats().failures == 1);
    // The local file keeps answering; the shared tier is not asked during the back-off.
    const auto idx = cache_index::load(file);
    CHECK(lookup_through(file, idx, t, prepared_key(local.key)).tier == lookup_tier::exact);
    CHECK(lookup_through(file, idx, t, prepared_key(key({3}))).tier == lookup_tier::nearest);
    CHECK(t.stats().skipped == 1);
    CHECK(t.stats().failures == 1);
    CHECK_FALSE(t.put(std::span<const entry>(&local, 1)));

    r.start(); // empty again: no persistence
    // The background reconnect (first after 300 ms) brings the tier back without a caller
    // waiting for it.
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (!t.put(std::span<const entry>(&shared, 1)) &&
           std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(10ms);
    CHECK(t.get(shared.key) == shared);
    CHECK(t.stats().failures == 1);
}

TEST_CASE("a hung Redis costs one timeout, then nothing while it is down") {
    cache_test::redis_server r;
    shared_tier t = tier_for(r, 5s);
    CHECK_FALSE(t.get(key({1})).has_value()); // connected
    r.pause();
    auto t0 = std::chrono::steady_clock::now();
    CHECK_FALSE(t.get(key({1})).has_value());
    const double first = ms_since(t0);
    t0 = std::chrono::steady_clock::now();
    CHECK_FALSE(t.get(key({1})).has_value());
    const double second = ms_since(t0);
    r.resume();
    INFO("first call " << first << " ms, second " << second << " ms");
    CHECK(first >= 40);  // it waited for the 50 ms timeout...
    CHECK(first < 1000); // ...and not much longer, even on a loaded machine
    CHECK(second < 10);  // back-off: not asked again
    CHECK(t.stats().failures == 1);
    CHECK(t.stats().skipped == 1);
}

TEST_CASE("push and pull say which server they could not reach") {
    cache_test::temp_dir dir;
    shared_tier t({.url = "unix://" + (dir.path / "none.sock").string()});
    const entry e = make(key({1}), 1, 1.0);
    try {
        t.push(std::span<const entry>(&e, 1));
        FAIL("no error");
    } catch (const ktune::error& err) {
        CHECK(err.kind() == ktune::error_kind::io);
        CHECK(std::string(err.what()).find("none.sock") != std::string::npos);
    }
    CHECK_THROWS_AS(t.pull(), ktune::error);
}
