// `ktune top` over a synthetic 10-million-kernel trace written through trace_writer: write
// time, file size, aggregate time and peak memory. CPU only.
//   profile_top_bench [records] [path]
#include "ktune/analysis/aggregate.hpp"
#include "ktune/trace/trace_file.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <random>
#include <string>
#include <sys/resource.h>
#include <vector>

using namespace ktune;

int main(int argc, char** argv) {
    const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10'000'000;
    const std::string path = argc > 2 ? argv[2] : "/tmp/ktune_top_bench.ktrace";
    using clock = std::chrono::steady_clock;
    const auto cpu = [] {
        timespec ts{};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
    };
    const auto t0 = clock::now();
    {
        trace::trace_environment env;
        env.command_line = {"synthetic", std::to_string(n)};
        trace::trace_writer w(path, env);
        constexpr std::uint32_t names = 200; // a model's worth of distinct kernels
        for (std::uint32_t i = 0; i < names; ++i)
            w.intern("_Z6kernelILi" + std::to_string(i) + "EEvPfi");
        std::mt19937_64 rng(1);
        std::vector<trace::kernel_record> block(1u << 16);
        std::uint64_t t = 1'000'000'000, corr = 1;
        for (std::size_t done = 0; done < n; done += block.size()) {
            const std::size_t m = std::min(block.size(), n - done);
            for (std::size_t i = 0; i < m; ++i) {
                auto& k = block[i];
                k.name_id = static_cast<std::uint32_t>(rng() % names);
                k.start_ns = t + rng() % 3000;
                k.end_ns = k.start_ns + 1000 + (k.name_id * 997 + rng() % 5000);
                t = k.end_ns;
                k.correlation = static_cast<std::uint32_t>(corr += 1 + rng() % 3);
                k.stream = 7 + static_cast<std::uint32_t>(rng() % 2);
                k.context = 1;
                k.grid = {64u << (k.name_id % 6), 1, 1};
                k.block = {128u << (k.name_id % 3), 1, 1};
                k.registers = 32 + k.name_id % 64;
            }
            w.write(std::span<const trace::kernel_record>(block.data(), m));
        }
        trace::trace_counters c;
        c.kernels = n;
        w.finish(env, c);
    }
    const auto t1 = clock::now();
    const double c1 = cpu();
    const auto report = analysis::aggregate({path}, analysis::group_by::kernel);
    const auto t2 = clock::now();
    const double c2 = cpu();
    const auto launch = analysis::aggregate({path}, analysis::group_by::launch);
    const auto t3 = clock::now();
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    const auto bytes = std::filesystem::file_size(path);
    const auto s = [](clock::time_point a, clock::time_point b) {
        return std::chrono::duration<double>(b - a).count();
    };
    std::printf(
        "{\"bench\":\"top\",\"records\":%zu,\"write_s\":%.3f,\"bytes\":%llu,"
        "\"bytes_per_record\":%.2f,\"top_kernel_s\":%.3f,\"top_launch_s\":%.3f,"
        "\"groups\":%zu,\"launch_groups\":%zu,\"max_rss_mb\":%.1f,\"top_kernel_cpu_s\":%.3f}\n",
        n, s(t0, t1), static_cast<unsigned long long>(bytes),
        static_cast<double>(bytes) / static_cast<double>(n), s(t1, t2), s(t2, t3),
        report.rows.size(), launch.rows.size(), ru.ru_maxrss / 1024.0, c2 - c1);
    std::filesystem::remove(path);
    return report.timeline.kernels == n ? 0 : 1;
}
