// The launcher's hot path on a CPU (docs/perf/kernel.md#launcher-hot-path):
//   plan_for   a resolved problem's plan: one hash lookup under a shared lock
//   launch     plan lookup + argument check + parameter marshalling, onto a driver that does
//              nothing (the CUDA driver's own cost is not part of it)
// Each is timed over `iters` calls with steady_clock, `runs` times; the report is ns per call,
// median with min..max over the runs.
//
//   kernel_launch_bench [iters=1000000] [runs=7]
#include "kernel/launch_driver.hpp"
#include "ktune/kernel/launcher.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <vector>

namespace {

namespace kk = ktune::kernel;

class null_driver final : public kk::detail::launch_driver {
public:
    kk::detail::module_handle load_module(std::string_view) override { return this; }
    void unload_module(kk::detail::module_handle) noexcept override {}
    kk::detail::function_handle get_function(kk::detail::module_handle m,
                                             const std::string&) override {
        return m;
    }
    void set_max_dynamic_shared(kk::detail::function_handle, std::int64_t) override {}
    void launch(kk::detail::function_handle, const kk::geometry& g,
                const kk::detail::kernel_params& p, CUstream_st*) override {
        sink += g.grid[0] + static_cast<std::int64_t>(p.count);
    }
    void copy_to_host(void*, const void*, std::size_t, CUstream_st*) override {}
    void synchronize(CUstream_st*) override {}
    std::int64_t sink = 0;
};

template <class F>
std::vector<double> time_runs(int runs, long iters, F&& f) {
    std::vector<double> ns;
    for (int r = 0; r < runs; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        for (long i = 0; i < iters; ++i)
            f(i);
        const auto t1 = std::chrono::steady_clock::now();
        ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() /
                     static_cast<double>(iters));
    }
    std::sort(ns.begin(), ns.end());
    return ns;
}

void report(const char* what, const std::vector<double>& ns) {
    fmt::print("{:<10} median {:.1f} ns  (min {:.1f} .. max {:.1f}, {} runs)\n", what,
               ns[ns.size() / 2], ns.front(), ns.back(), ns.size());
}

} // namespace

int main(int argc, char** argv) {
    const long iters = argc > 1 ? std::atol(argv[1]) : 1000000;
    const int runs = argc > 2 ? std::atoi(argv[2]) : 7;
    const auto tmp =
        std::filesystem::temp_directory_path() / fmt::format("ktune_launch_bench_{}", ::getpid());
    std::filesystem::create_directories(tmp);
    kk::launcher_options o;
    o.cache_file = tmp / "tuned.json"; // empty: every problem runs the default config
    o.cubin_dir = tmp / "cubin";
    o.misses_file = tmp / "misses.jsonl";
    o.env = ktune::cache::environment{"sm_90", 13000, 580, 1};
    auto driver = std::make_shared<null_driver>();
    o.driver = driver;
    kk::launcher l(std::filesystem::path(KTUNE_LAUNCH_SPEC), o);
    // 16 distinct problems resolved up front, looked up round robin.
    std::vector<std::int64_t> sizes;
    for (std::int64_t n = 1024; sizes.size() < 16; n += 1024)
        sizes.push_back(n);
    for (auto n : sizes)
        l.prepare(std::span<const std::int64_t>(&n, 1));
    std::vector<float> x(1), y(1);
    std::int64_t sink = 0;
    report("plan_for", time_runs(runs, iters, [&](long i) {
               const std::int64_t n = sizes[static_cast<std::size_t>(i) & 15];
               sink += l.plan_for(std::span<const std::int64_t>(&n, 1)).geo.grid[0];
           }));
    report("launch", time_runs(runs, iters, [&](long i) {
               const std::int64_t n = sizes[static_cast<std::size_t>(i) & 15];
               l.launch(std::span<const std::int64_t>(&n, 1),
                        {x.data(), y.data(), static_cast<std::int32_t>(n), std::int64_t{1}},
                        nullptr);
           }));
    fmt::print("(checksum {})\n", sink + driver->sink);
    std::filesystem::remove_all(tmp);
    return 0;
}
