// Several processes store into one file at once; a writer killed mid-store leaves a valid file
// holding every entry whose store returned. Small counts: the full-size runs are in bench/cache.
#include "cache_test_util.hpp"
#include "catch.hpp"
#include "processes.hpp"

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

using namespace ktune::cache;
using cache_test::key;
using cache_test::make;

TEST_CASE("concurrent writers in separate processes lose nothing") {
    cache_test::temp_dir dir;
    const auto file = dir.path / "cache.json";
    constexpr int procs = 4, per = 15;
    ktune_test::run_in_processes(procs, [&](int p) {
        for (int i = 0; i < per; ++i)
            store(file, make(key({p, i}), p * 100 + i, 1.0));
    });
    const cache_index idx = cache_index::load(file);
    CHECK(idx.size() == static_cast<std::size_t>(procs * per));
    for (int p = 0; p < procs; ++p)
        for (int i = 0; i < per; ++i) {
            const entry* e = idx.find(prepared_key(key({p, i})));
            REQUIRE(e != nullptr);
            CHECK(e->cfg.get<int>("block") == p * 100 + i);
        }
}

TEST_CASE("a writer killed mid-store leaves a valid file with every returned store") {
    cache_test::temp_dir dir;
    const auto file = dir.path / "cache.json";
    // Some bulk so that a store takes long enough to be interrupted inside it.
    std::vector<entry> bulk;
    for (int i = 0; i < 2000; ++i)
        bulk.push_back(make(key({i}, "bulk"), i, 1.0));
    store(file, bulk);
    int confirmed_total = 0;
    for (int round = 0; round < 5; ++round) {
        int fds[2];
        REQUIRE(::pipe(fds) == 0);
        const pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            ::close(fds[0]);
            for (int i = 0;; ++i) {
                store(file, make(key({round, i}), i, 1.0));
                const int done = i; // reported only after store() returned
                if (::write(fds[1], &done, sizeof done) != sizeof done) ::_exit(1);
            }
        }
        ::close(fds[1]);
        ::usleep(static_cast<useconds_t>(20000 + 7000 * round));
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
        int last = -1, v = 0;
        while (::read(fds[0], &v, sizeof v) == sizeof v)
            last = v;
        ::close(fds[0]);
        const cache_index idx = cache_index::load(file); // throws if the file were torn
        for (int i = 0; i <= last; ++i)
            REQUIRE(idx.find(prepared_key(key({round, i}))) != nullptr);
        confirmed_total += last + 1;
    }
    INFO("stores confirmed before the kills: " << confirmed_total);
    CHECK(cache_index::load(file).size() >= 2000u + static_cast<std::size_t>(confirmed_total));
}
