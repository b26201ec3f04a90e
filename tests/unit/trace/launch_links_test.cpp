// The per-thread link rings (launch_links.hpp): a launching thread appends without a lock while
// the buffer thread drains; nothing is lost, each thread's links stay in order, a full ring is
// drained by its producer, and a ring outlives its thread until drained.
#include "catch.hpp"
#include "trace/launch_links.hpp"

#include <atomic>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

using ktune::trace::detail::launch_link;
using ktune::trace::detail::link_ring;
using ktune::trace::detail::link_rings;

TEST_CASE("range ids pack into one external correlation id and back") {
    const auto id = ktune::trace::detail::pack_range(7, 0xfffffffeu);
    const auto l = ktune::trace::detail::unpack_range(42, id);
    CHECK(l.correlation == 42);
    CHECK(l.range == 7);
    CHECK(l.path == 0xfffffffeu);
}

TEST_CASE("a full ring refuses, and takes links again once drained") {
    link_ring r;
    for (std::uint32_t i = 0; i < link_ring::capacity; ++i)
        REQUIRE(r.push({i, 1, 1}));
    CHECK_FALSE(r.push({0, 0, 0}));
    std::uint32_t n = 0;
    bool ordered = true;
    r.drain([&](const launch_link& l) { ordered = ordered && l.correlation == n++; });
    CHECK(ordered);
    CHECK(n == link_ring::capacity);
    CHECK(r.push({1, 1, 1}));
}

TEST_CASE("links from several threads drained concurrently: none lost, each in order") {
    link_rings rings;
    constexpr int threads = 4;
    constexpr std::uint32_t per_thread = 50000; // > capacity: producers drain full rings too
    std::atomic<int> done{0};
    std::map<std::uint32_t, std::vector<std::uint32_t>> seen; // thread -> correlations
    std::mutex seen_mutex;
    const auto take = [&](const launch_link& l) {
        std::lock_guard lock(seen_mutex);
        seen[l.range].push_back(l.correlation);
    };
    std::vector<std::thread> producers;
    for (int t = 0; t < threads; ++t)
        producers.emplace_back([&, t] {
            auto ring = rings.add();
            for (std::uint32_t i = 0; i < per_thread; ++i)
                while (!ring->push({i, static_cast<std::uint32_t>(t), 0}))
                    ring->drain(take);
            ++done;
        });
    while (done.load() < threads)
        rings.drain(take);
    for (auto& p : producers)
        p.join();
    rings.drain(take); // the threads are gone; their rings are still drained
    REQUIRE(seen.size() == threads);
    for (const auto& [t, corr] : seen) {
        INFO("thread " << t);
        REQUIRE(corr.size() == per_thread);
        bool ordered = true;
        for (std::uint32_t i = 0; i < per_thread; ++i)
            ordered = ordered && corr[i] == i;
        CHECK(ordered);
    }
    rings.drain(take); // exited threads' rings were released after their last drain
    CHECK(seen.begin()->second.size() == per_thread);
}
