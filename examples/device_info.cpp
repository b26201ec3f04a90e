// Embedding ktune: ask which GPU this is and what its roofs are, without any CUDA boilerplate.
#include <ktune/ktune.hpp>

#include <cstdio>

int main() {
    const ktune::device_query q = ktune::query_devices();
    if (q.devices.empty()) {
        std::printf("%s\n", q.no_device_reason.c_str());
        return 0;
    }
    for (const auto& d : q.devices) {
        const auto peaks = ktune::find_gpu_peaks(d.name);
        std::printf("%s (%s): %d SMs, %.0f MiB L2, DRAM %.0f GB/s spec\n", d.name.c_str(),
                    d.arch().c_str(), d.sm_count, d.l2_bytes / 1048576.0,
                    peaks ? peaks->dram_gbs : d.memory_bandwidth_gbs());
    }
}
