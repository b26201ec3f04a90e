// The Redis shared tier's claims, measured against a real redis-server on a unix socket
// (docs/perf/cache.md, "Redis shared tier"):
//   cache_redis_bench fleet  [P] [N]   P processes x N stores, then N lookups each; lost entries
//   cache_redis_bench outage [R]       R times: Redis SIGKILLed (then SIGSTOPped) under a lookup
//                                      loop: the added latency once, the back-off retries
// Medians with min..max are printed.
#include "ktune/cache/cache.hpp"
#include "ktune/cache/shared_tier.hpp"
#include "redis_server.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace {

using namespace ktune::cache;
using namespace std::chrono_literals;
using clk = std::chrono::steady_clock;

double ms(clk::duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
}

struct summary {
    double median, min, max;
};
summary summarize(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return {v[v.size() / 2], v.front(), v.back()};
}

cache_key bench_key(int p, int i) {
    return {"gemm", "v2", "fp16", {64 * (1 + i), 128 * (1 + p)}, "sm_90", 13000, 580, 1};
}

entry bench_entry(int p, int i) {
    entry e;
    e.key = bench_key(p, i);
    e.cfg = ktune::config{{"block_m", std::int64_t{128}},
                          {"block_n", std::int64_t{64}},
                          {"stages", std::int64_t{3}},
                          {"proc", std::int64_t{p}}};
    e.time = {10.0 + i, 9.9 + i, 10.1 + i, 40};
    e.origin = {"NVIDIA H200", "GPU-1", 1980, 3201, "2026-11-25T00:00:00Z", "0.1.0", "node"};
    return e;
}

int bench_fleet(int procs, int per) {
    cache_test::redis_server redis;
    std::vector<pid_t> kids;
    int times[2];
    if (::pipe(times) != 0) return 2;
    const auto t0 = clk::now();
    for (int p = 0; p < procs; ++p) {
        const pid_t pid = ::fork();
        if (pid < 0) return 2;
        if (pid == 0) {
            shared_tier t({.url = redis.url(), .timeout = 1s});
            const auto a = clk::now();
            int failed = 0, missed = 0;
            for (int i = 0; i < per; ++i) {
                const entry e = bench_entry(p, i);
                failed += !t.put(std::span<const entry>(&e, 1));
            }
            const auto b = clk::now();
            for (int i = 0; i < per; ++i) {
                const auto got = t.get(bench_key(p, i));
                missed += !got || got->cfg.get<int>("proc") != p;
            }
            const auto c = clk::now();
            const double r[4] = {ms(b - a) * 1e3 / per, ms(c - b) * 1e3 / per,
                                 static_cast<double>(failed), static_cast<double>(missed)};
            if (::write(times[1], r, sizeof r) != sizeof r) ::_exit(1);
            ::_exit(0);
        }
        kids.push_back(pid);
    }
    ::close(times[1]);
    for (const pid_t pid : kids)
        ::waitpid(pid, nullptr, 0);
    const double wall = ms(clk::now() - t0);
    std::vector<double> store_us, get_us;
    double failed = 0, missed = 0, r[4];
    while (::read(times[0], r, sizeof r) == sizeof r) {
        store_us.push_back(r[0]);
        get_us.push_back(r[1]);
        failed += r[2];
        missed += r[3];
    }
    shared_tier t({.url = redis.url(), .timeout = 2s});
    const std::size_t present = t.pull().size();
    const auto s = summarize(store_us), g = summarize(get_us);
    fmt::print("{} processes x {} stores then {} lookups against one redis-server, {:.0f} ms "
               "wall\n",
               procs, per, per, wall);
    fmt::print("  store: median {:.1f} us per entry over processes (min {:.1f}, max {:.1f})\n",
               s.median, s.min, s.max);
    fmt::print("  lookup: median {:.1f} us (min {:.1f}, max {:.1f})\n", g.median, g.min, g.max);
    fmt::print("  stores that failed: {:.0f}; lookups that missed: {:.0f}; entries in Redis: {} "
               "of {} ({} lost)\n",
               failed, missed, present, procs * per,
               static_cast<long>(procs * per) - static_cast<long>(present));
    return present == static_cast<std::size_t>(procs * per) && failed == 0 && missed == 0 ? 0 : 1;
}

// One outage: lookups that miss the local file (so each asks Redis) run in a loop; the server
// is killed or stopped; the loop goes on from the local file. Returns the slowest call after
// the outage began minus the median call before it, and the number of retries seen in 2 s.
struct outage_result {
    double added_ms, later_max_ms, baseline_ms;
    std::size_t answered_before, retries;
    double reconnect_ms;
};

outage_result one_outage(bool hang) {
    cache_test::redis_server redis;
    const auto dir = redis.dir() / "local";
    std::filesystem::create_directories(dir);
    const auto file = dir / "cache.json";
    store(file, bench_entry(0, 0));
    const cache_index idx = cache_index::load(file);
    shared_tier t({.url = redis.url(), .retry_first = 250ms, .retry_max = 2s}); // default timeout
    std::vector<double> before;
    for (int i = 0; i < 200; ++i) {
        const auto a = clk::now();
        (void)lookup_through(file, idx, t, prepared_key(bench_key(1, i))); // local miss
        before.push_back(ms(clk::now() - a));
    }
    const std::size_t answered = t.stats().misses + t.stats().hits;
    hang ? redis.pause() : redis.stop(SIGKILL);
    const auto outage = clk::now();
    double first = 0, later_max = 0;
    for (int i = 0; ms(clk::now() - outage) < 2000; ++i) {
        const auto a = clk::now();
        const auto r = lookup_through(file, idx, t, prepared_key(bench_key(1, i % 100)));
        const double d = ms(clk::now() - a);
        if (r.tier != lookup_tier::nearest) throw std::runtime_error("local file did not answer");
        if (i == 0)
            first = d;
        else
            later_max = std::max(later_max, d);
        std::this_thread::sleep_for(1ms);
    }
    const std::size_t retries = t.stats().retries;
    if (hang)
        redis.resume();
    else
        redis.start();
    const auto back = clk::now();
    const entry e = bench_entry(2, 0);
    while (!t.put(std::span<const entry>(&e, 1)))
        std::this_thread::sleep_for(1ms);
    const double reconnect = ms(clk::now() - back);
    const double base = summarize(before).median;
    return {first - base, later_max - base, base, answered, retries, reconnect};
}

int bench_outage(int rounds) {
    for (const bool hang : {false, true}) {
        std::vector<double> added, later, base, reconnect, retries, answered;
        for (int r = 0; r < rounds; ++r) {
            const auto o = one_outage(hang);
            added.push_back(o.added_ms);
            later.push_back(o.later_max_ms);
            base.push_back(o.baseline_ms);
            retries.push_back(static_cast<double>(o.retries));
            answered.push_back(static_cast<double>(o.answered_before));
            reconnect.push_back(o.reconnect_ms);
        }
        const auto a = summarize(added), l = summarize(later), b = summarize(base),
                   n = summarize(retries), c = summarize(reconnect);
        fmt::print("Redis {} under a lookup loop, {} rounds (default timeout 40 ms, "
                   "back-off 250 ms doubling to 2 s):\n",
                   hang ? "SIGSTOPped (hung)" : "SIGKILLed", rounds);
        fmt::print("  lookup before (a local miss Redis answers; {:.0f} of 200 answered): median "
                   "{:.3f} ms (min {:.3f}, max {:.3f})\n",
                   summarize(answered).min, b.median, b.min, b.max);
        fmt::print("  first lookup after: +{:.2f} ms added (min {:.2f}, max {:.2f})\n", a.median,
                   a.min, a.max);
        fmt::print("  slowest later lookup in the next 2 s: +{:.2f} ms (min {:.2f}, max {:.2f})\n",
                   l.median, l.min, l.max);
        fmt::print("  failed background reconnects in those 2 s: median {:.0f} (min {:.0f}, max "
                   "{:.0f})\n",
                   n.median, n.min, n.max);
        fmt::print("  back in use after the server returned: median {:.0f} ms (min {:.0f}, max "
                   "{:.0f})\n",
                   c.median, c.min, c.max);
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    const auto arg = [&](int i, int def) { return argc > i ? std::stoi(argv[i]) : def; };
    if (cache_test::find_redis_server().empty() || !shared_tier::supported()) {
        fmt::print(stderr, "cache_redis_bench: needs redis-server and a build with hiredis\n");
        return 2;
    }
    try {
        if (mode == "fleet") return bench_fleet(arg(2, 16), arg(3, 1000));
        if (mode == "outage") return bench_outage(arg(2, 10));
    } catch (const std::exception& e) {
        fmt::print(stderr, "cache_redis_bench: {}\n", e.what());
        return 2;
    }
    fmt::print(stderr, "usage: cache_redis_bench fleet [P] [N] | outage [R]\n");
    return 2;
}
