// Profiling-overhead workloads, run once plain and once under `ktune profile` by gpu_step.sh.
//   profile_workload tiny 20000 | heavy 100 | graph 1000 20 | nvtx 20000 K | long 20000
// (nvtx: the tiny launches, each K of them inside one NVTX push/pop range; long: ~10 us kernels)
// Prints one JSON line: the median wall time of 5 timed repetitions after a warm-up, and the
// median host time of the launch loop alone (before the final synchronisation).
#include "kernels.hpp"

#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: profile_workload tiny N | heavy N | graph NODES REPLAYS | "
                             "nvtx N PER_RANGE\n");
        return 2;
    }
    const std::string mode = argv[1];
    const int n = std::atoi(argv[2]);
    const int replays = argc > 3 ? std::atoi(argv[3]) : 1;
    if (!bench_init()) return 1;
    void* graph = mode == "graph" ? bench_make_graph(n) : nullptr;
    auto launched = std::chrono::steady_clock::now();
    const auto run = [&] {
        if (mode == "tiny")
            bench_tiny_launches(n);
        else if (mode == "nvtx")
            for (int i = 0; i < n; i += replays) {
                nvtxRangePushA("step");
                bench_tiny_launches(replays);
                nvtxRangePop();
            }
        else if (mode == "heavy")
            bench_heavy_launches(n);
        else if (mode == "long")
            bench_long_launches(n);
        else
            bench_replay(graph, replays);
        launched = std::chrono::steady_clock::now();
        return bench_sync();
    };
    if (!run()) return 1;
    std::vector<double> ms, host;
    using ms_t = std::chrono::duration<double, std::milli>;
    for (int r = 0; r < 5; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        if (!run()) return 1;
        ms.push_back(ms_t(std::chrono::steady_clock::now() - t0).count());
        host.push_back(ms_t(launched - t0).count());
    }
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    std::sort(host.begin(), host.end());
    const std::string name = mode == "nvtx" ? "nvtx" + std::to_string(replays) : mode;
    std::printf("{\"bench\":\"cpp_%s\",\"median_ms\":%.3f,\"host_ms\":%.3f,\"ms\":[", name.c_str(),
                sorted[2], host[2]);
    for (std::size_t i = 0; i < ms.size(); ++i)
        std::printf("%s%.3f", i ? "," : "", ms[i]);
    std::printf("]}\n");
    return 0;
}
