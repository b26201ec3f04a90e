// CPU cost of ktune's NVTX handlers (one push + pop) on the program's thread, through the fake
// CUPTI seam: alone, and while CUPTI's buffer thread decodes buffers of 30 000 kernel records
// (it holds the collector's staging lock for each). No GPU; one JSON line per case.
//   profile_nvtx_cost [pairs]
#include "fake_cupti.hpp"
#include "trace/nvtx_hooks.hpp"

#include "ktune/trace/session.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <vector>

namespace td = ktune::trace::detail;

int main(int argc, char** argv) {
    const long pairs = argc > 1 ? std::atol(argv[1]) : 1000000;
    const auto path = (std::filesystem::temp_directory_path() / "ktune_nvtx_cost.ktrace").string();
    auto owner = std::make_unique<ktune::test::fake_cupti>();
    auto* fake = owner.get();
    ktune::trace::session_options o;
    o.output = path;
    ktune::trace::session s(o, std::move(owner));
    if (!s.start()) return 1;
    td::nvtx_push("warm-up"); // turns the launch links on before the buffer thread starts
    td::nvtx_pop();
    for (const bool busy : {false, true}) {
        std::atomic<bool> stop{false};
        std::thread buffers;
        if (busy)
            buffers = std::thread([&] {
                std::uint32_t corr = 1;
                while (!stop.load()) {
                    for (int i = 0; i < 30000; ++i, ++corr)
                        fake->add(ktune::test::make_kernel("_Z4stepPf", corr, corr + 1, corr));
                    fake->deliver();
                }
            });
        std::vector<double> lat(static_cast<std::size_t>(pairs));
        using clk = std::chrono::steady_clock;
        const auto t0 = clk::now();
        for (long i = 0; i < pairs; ++i) {
            const auto a = clk::now();
            td::nvtx_push("step");
            td::nvtx_pop();
            lat[static_cast<std::size_t>(i)] =
                std::chrono::duration<double, std::nano>(clk::now() - a).count();
        }
        const double total = std::chrono::duration<double, std::nano>(clk::now() - t0).count();
        stop = true;
        if (buffers.joinable()) buffers.join();
        std::sort(lat.begin(), lat.end());
        const auto q = [&](double p) {
            return lat[static_cast<std::size_t>(p * (lat.size() - 1))];
        };
        std::printf("{\"bench\":\"nvtx_push_pop\",\"buffer_thread\":%s,\"pairs\":%ld,"
                    "\"mean_ns\":%.1f,\"p50_ns\":%.0f,\"p99_ns\":%.0f,\"p999_ns\":%.0f,"
                    "\"max_ns\":%.0f}\n",
                    busy ? "true" : "false", pairs, total / pairs, q(0.5), q(0.99), q(0.999),
                    lat.back());
    }
    s.stop();
    s.save();
    std::filesystem::remove(path);
    return 0;
}
