// ktune's config-cache claims, measured (docs/perf/cache.md):
//   cache_bench lookup  [N]        hot lookup latency on an N-entry index (default 10^5)
//   cache_bench threads [N]        aggregate lookup rate with 1..cores reader threads
//   cache_bench load    [N] [minified]  cold load (read + parse + index) of an N-entry file;
//                                  "minified": the same document on one line (another tool's)
//   cache_bench stores  [P] [S]    P processes x S concurrent stores into one file
//   cache_bench kill    [R]        R writers SIGKILLed at random moments mid-store
// Every timing is repeated; medians with p10/p90 (or min/max) are printed.
#include "cache/cache_json.hpp"
#include "ktune/cache/cache.hpp"
#include "ktune/core/atomic_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <random>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace {

using namespace ktune::cache;
using clk = std::chrono::steady_clock;

double secs(clk::time_point a, clk::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

struct summary {
    double median, p10, p90, min, max;
};
summary summarize(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const auto q = [&](double f) { return v[static_cast<std::size_t>(f * (v.size() - 1) + 0.5)]; };
    return {q(0.5), q(0.1), q(0.9), v.front(), v.back()};
}

// A realistic mix: 10 ops x 4 dtypes x 2 toolkits x 2 archs, the rest in 2-D buckets.
cache_key bench_key(std::size_t i) {
    static const char* ops[] = {"gemm",   "softmax", "layernorm", "rmsnorm", "attention",
                                "conv2d", "reduce",  "transpose", "gelu",    "rope"};
    static const char* dtypes[] = {"fp32", "fp16", "bf16", "fp8"};
    cache_key k;
    k.op = ops[i % 10];
    k.op_version = "v2";
    k.dtype = dtypes[(i / 10) % 4];
    k.arch = (i / 40) % 2 ? "sm_90" : "sm_100";
    k.toolkit = (i / 80) % 2 ? 13000 : 12080;
    k.driver_major = 580;
    const auto j = static_cast<std::int64_t>(i / 160);
    k.bucket = {128 * (1 + j % 64), 64 * (1 + j / 64)};
    return k;
}

entry bench_entry(std::size_t i) {
    entry e;
    e.key = bench_key(i);
    e.cfg = ktune::config{{"block_m", std::int64_t{128}}, {"block_n", std::int64_t{64}},
                          {"block_k", std::int64_t{32}},  {"warps", std::int64_t{4}},
                          {"stages", std::int64_t{3}},    {"swizzle", true}};
    const double m = 10.0 + static_cast<double>(i % 997) * 0.25;
    e.time = {m, m * 0.99, m * 1.01, 40};
    e.origin = {"NVIDIA H200",
                "GPU-6c3a8e8f-1d2b-4c5d-9e0f-123456789abc",
                1980,
                3201,
                "2026-11-21T10:00:00Z",
                "0.1.0",
                "node-17"};
    return e;
}

std::vector<entry> bench_entries(std::size_t n) {
    std::vector<entry> es;
    es.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
        es.push_back(bench_entry(i));
    return es;
}

volatile std::uintptr_t sink;

int bench_lookup(std::size_t n) {
    const cache_index idx(bench_entries(n));
    std::vector<prepared_key> hot;
    for (std::size_t i = 0; i < 64; ++i)
        hot.emplace_back(bench_key(i * 1543 % n));
    std::vector<prepared_key> all;
    for (std::size_t i = 0; i < n; ++i)
        all.emplace_back(bench_key(i));
    std::shuffle(all.begin(), all.end(), std::mt19937_64(1));
    const auto run = [&](const std::vector<prepared_key>& keys, std::size_t batch) {
        std::vector<double> ns;
        std::size_t at = 0;
        for (int rep = 0; rep < 201; ++rep) {
            std::uintptr_t acc = 0;
            const auto t0 = clk::now();
            for (std::size_t i = 0; i < batch; ++i) {
                acc += reinterpret_cast<std::uintptr_t>(idx.lookup(keys[at]).cfg);
                at = at + 1 == keys.size() ? 0 : at + 1;
            }
            const auto t1 = clk::now();
            sink = acc;
            ns.push_back(secs(t0, t1) * 1e9 / static_cast<double>(batch));
        }
        return summarize(ns);
    };
    const auto h = run(hot, 10000);
    fmt::print("hot lookup ({} entries, 64 hot keys, 201 batches of 10^4): median {:.1f} ns/lookup "
               "(p10 {:.1f}, p90 {:.1f}, min {:.1f}, max {:.1f})\n",
               n, h.median, h.p10, h.p90, h.min, h.max);
    const auto r = run(all, 10000);
    fmt::print("random-key lookup (all {} keys shuffled, memory-bound): median {:.1f} ns/lookup "
               "(p10 {:.1f}, p90 {:.1f})\n",
               n, r.median, r.p10, r.p90);
    std::vector<prepared_key> near;
    for (std::size_t i = 0; i < 64; ++i) {
        auto k = bench_key(i * 1543 % n);
        k.bucket[0] += 1; // between buckets: answered by the nearest tier
        near.emplace_back(k);
    }
    const auto nr = run(near, 1000);
    fmt::print("nearest-tier lookup: median {:.1f} ns/lookup (p10 {:.1f}, p90 {:.1f})\n", nr.median,
               nr.p10, nr.p90);
    return 0;
}

int bench_threads(std::size_t n) {
    const cache_index idx(bench_entries(n));
    std::vector<prepared_key> hot;
    for (std::size_t i = 0; i < 64; ++i)
        hot.emplace_back(bench_key(i * 1543 % n));
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    double base = 0;
    for (unsigned t = 1; t <= cores; t = t < cores && t * 2 > cores ? cores : t * 2) {
        std::vector<double> rates;
        for (int rep = 0; rep < 7; ++rep) {
            std::atomic<bool> go{false};
            std::vector<std::thread> ths;
            constexpr std::size_t per = 2'000'000;
            for (unsigned k = 0; k < t; ++k)
                ths.emplace_back([&, k] {
                    while (!go.load(std::memory_order_acquire)) {
                    }
                    std::uintptr_t acc = 0;
                    std::size_t at = k;
                    for (std::size_t i = 0; i < per; ++i) {
                        acc += reinterpret_cast<std::uintptr_t>(idx.lookup(hot[at & 63]).cfg);
                        ++at;
                    }
                    sink = acc;
                });
            const auto t0 = clk::now();
            go.store(true, std::memory_order_release);
            for (auto& th : ths)
                th.join();
            rates.push_back(static_cast<double>(per * t) / secs(t0, clk::now()) / 1e6);
        }
        const auto s = summarize(rates);
        if (t == 1) base = s.median;
        fmt::print("{:>3} reader threads: {:8.1f} M lookups/s (min {:.1f}, max {:.1f}), {:.2f}x of "
                   "one thread\n",
                   t, s.median, s.min, s.max, s.median / base);
        if (t == cores) break;
    }
    return 0;
}

int bench_load(std::size_t n, bool minified) {
    const auto dir = std::filesystem::temp_directory_path() / "ktune-cache-bench";
    std::filesystem::create_directories(dir);
    const auto file = dir / "load.json";
    write_cache(file, bench_entries(n));
    if (minified) { // ktune's own layout minus every newline: one line, as `jq -c` writes it
        bool exists = false;
        std::string one = detail::read_all(file, exists);
        std::erase(one, '\n');
        ktune::write_file_atomically(file, one + "\n");
    }
    fmt::print("{} entries{}, {:.1f} MB file (simdjson reader: {})\n", n,
               minified ? " on one line" : "",
               static_cast<double>(std::filesystem::file_size(file)) / 1e6,
               detail::have_simdjson() ? "yes" : "no");
    std::vector<double> ms, parse_ms, nl_ms;
    bool exists = false;
    const std::string text = detail::read_all(file, exists);
    for (int rep = 0; rep < 11; ++rep) {
        const auto t0 = clk::now();
        const cache_index idx = cache_index::load(file);
        const auto t1 = clk::now();
        if (idx.size() != n) return 1;
        ms.push_back(secs(t0, t1) * 1e3);
        const auto t2 = clk::now();
        const auto es = parse_cache(text, "x");
        parse_ms.push_back(secs(t2, clk::now()) * 1e3);
    }
    for (int rep = 0; rep < 3; ++rep) {
        const auto t0 = clk::now();
        const auto es = detail::parse_cache_nlohmann(text, "x");
        nl_ms.push_back(secs(t0, clk::now()) * 1e3);
    }
    const auto s = summarize(ms), p = summarize(parse_ms), q = summarize(nl_ms);
    fmt::print("cold load (read + parse + index), 11 runs: median {:.1f} ms (min {:.1f}, max "
               "{:.1f})\n",
               s.median, s.min, s.max);
    fmt::print("  of which parse to entries: median {:.1f} ms (min {:.1f}, max {:.1f})\n", p.median,
               p.min, p.max);
    fmt::print("  nlohmann reader instead, 3 runs: median {:.1f} ms (min {:.1f}, max {:.1f})\n",
               q.median, q.min, q.max);
    std::filesystem::remove_all(dir);
    return 0;
}

int bench_stores(int procs, int per) {
    const auto dir = std::filesystem::temp_directory_path() / "ktune-cache-stores";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const auto file = dir / "cache.json";
    const auto t0 = clk::now();
    std::vector<pid_t> kids;
    for (int p = 0; p < procs; ++p) {
        const pid_t pid = ::fork();
        if (pid == 0) {
            try {
                for (int i = 0; i < per; ++i)
                    store(file, bench_entry(static_cast<std::size_t>(p * per + i)));
            } catch (const std::exception& e) {
                fmt::print(stderr, "writer {}: {}\n", p, e.what());
                ::_exit(1);
            }
            ::_exit(0);
        }
        kids.push_back(pid);
    }
    int failed = 0;
    for (const pid_t pid : kids) {
        int st = 0;
        ::waitpid(pid, &st, 0);
        failed += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    const double wall = secs(t0, clk::now());
    const auto issues = verify(file);
    const cache_index idx = cache_index::load(file);
    std::size_t present = 0;
    for (int i = 0; i < procs * per; ++i)
        present += idx.find(prepared_key(bench_key(static_cast<std::size_t>(i)))) != nullptr;
    fmt::print("{} processes x {} stores: {} failed writers, {}/{} entries present, file {} "
               "({} verify issues), {:.1f} s wall, {:.0f} stores/s\n",
               procs, per, failed, present, procs * per, issues.empty() ? "valid" : "INVALID",
               issues.size(), wall, procs * per / wall);
    std::filesystem::remove_all(dir);
    return failed == 0 && issues.empty() && present == static_cast<std::size_t>(procs * per) ? 0
                                                                                             : 1;
}

int bench_kill(int rounds) {
    const auto dir = std::filesystem::temp_directory_path() / "ktune-cache-kill";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const auto file = dir / "cache.json";
    std::vector<entry> bulk;
    for (std::size_t i = 0; i < 5000; ++i)
        bulk.push_back(bench_entry(100000 + i));
    store(file, bulk); // ~2 MB, so a store spends real time writing
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<int> delay_us(1000, 150000);
    int valid = 0, complete = 0, mid_write = 0;
    std::size_t confirmed = 0;
    for (int round = 0; round < rounds; ++round) {
        int fds[2];
        if (::pipe(fds) != 0) return 1;
        const pid_t pid = ::fork();
        if (pid == 0) {
            ::close(fds[0]);
            for (int i = 0;; ++i) {
                store(file, bench_entry(static_cast<std::size_t>(round * 100000 + i) % 99991));
                if (::write(fds[1], &i, sizeof i) != sizeof i) ::_exit(1);
            }
        }
        ::close(fds[1]);
        ::usleep(static_cast<useconds_t>(delay_us(rng)));
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
        mid_write += std::filesystem::exists(file.string() + ".tmp");
        int last = -1, v = 0;
        while (::read(fds[0], &v, sizeof v) == sizeof v)
            last = v;
        ::close(fds[0]);
        try {
            const cache_index idx = cache_index::load(file);
            ++valid;
            bool all = idx.size() >= bulk.size();
            for (int i = 0; i <= last; ++i)
                all = all && idx.find(prepared_key(bench_key(
                                 static_cast<std::size_t>(round * 100000 + i) % 99991))) != nullptr;
            complete += all;
            confirmed += static_cast<std::size_t>(last + 1);
        } catch (const std::exception& e) {
            fmt::print(stderr, "round {}: {}\n", round, e.what());
        }
    }
    fmt::print("{} SIGKILLed writers ({} killed while writing the temp file): file valid after "
               "{}/{}, every returned store present after {}/{} ({} stores confirmed)\n",
               rounds, mid_write, valid, rounds, complete, rounds, confirmed);
    std::filesystem::remove_all(dir);
    return valid == rounds && complete == rounds ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    const auto arg = [&](int i, long def) { return argc > i ? std::stol(argv[i]) : def; };
    try {
        if (mode == "lookup") return bench_lookup(static_cast<std::size_t>(arg(2, 100000)));
        if (mode == "threads") return bench_threads(static_cast<std::size_t>(arg(2, 100000)));
        if (mode == "load")
            return bench_load(static_cast<std::size_t>(arg(2, 100000)),
                              argc > 3 && std::string(argv[3]) == "minified");
        if (mode == "stores")
            return bench_stores(static_cast<int>(arg(2, 16)), static_cast<int>(arg(3, 500)));
        if (mode == "kill") return bench_kill(static_cast<int>(arg(2, 100)));
    } catch (const std::exception& e) {
        fmt::print(stderr, "cache_bench: {}\n", e.what());
        return 2;
    }
    fmt::print(stderr, "usage: cache_bench lookup|threads|load|stores|kill [args]\n");
    return 2;
}
