#include "core/cache_files.hpp"
#include "ktune/compile/compile.hpp"
#include "ktune/core/check.hpp"
#include "ktune/core/cuda_handles.hpp"
#include "ktune/measure/l2_flush.hpp"
#include "ktune/measure/sample_stats.hpp"
#include "ktune/tune/tuner.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <chrono>
#include <filesystem>
#include <vector>

namespace ktune::tune {

double measure_copy_gbs() {
    // 512 MiB each way: far beyond any L2, long enough (~0.25 ms on Hopper) for event timing.
    constexpr std::size_t bytes = 512ULL << 20;
    device_buffer a(bytes), b(bytes);
    cuda_stream s;
    cuda_event e0, e1;
    // The candidates' protocol: each copy after a read sweep of L2 outside its events, so it
    // neither finds its source in L2 nor writes back the previous copy's dirty lines.
    measure::l2_flusher flush;
    KTUNE_CUDA_CALL(cudaMemsetAsync(a.data(), 1, bytes, s.get()));
    std::vector<double> gbs;
    for (int i = 0; i < 12; ++i) {
        flush.enqueue(s.get());
        KTUNE_CUDA_CALL(cudaEventRecord(e0.get(), s.get()));
        KTUNE_CUDA_CALL(
            cudaMemcpyAsync(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice, s.get()));
        KTUNE_CUDA_CALL(cudaEventRecord(e1.get(), s.get()));
        KTUNE_CUDA_CALL(cudaEventSynchronize(e1.get()));
        float ms = 0;
        KTUNE_CUDA_CALL(cudaEventElapsedTime(&ms, e0.get(), e1.get()));
        if (i >= 2) gbs.push_back(2.0 * static_cast<double>(bytes) / (ms * 1e6)); // warm-up: 2
    }
    return measure::median(gbs);
}

std::filesystem::path copy_gbs_file(const device_info& dev, const std::string& driver) {
    std::string id = dev.uuid.empty() ? dev.name + dev.pci_bus_id : dev.uuid;
    for (char& c : id)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') c = '_';
    return compile::cubin_cache::default_dir() /
           // v2: copies timed after a read sweep of L2 (v1 timed them back to back)
           fmt::format("copy-gbs-v2-{}-driver{}.txt", id, driver.empty() ? "unknown" : driver);
}

double copy_gbs_for(const device_info& dev, const std::string& driver, bool* cached) {
    // Re-measured after a day: a figure from before a board swap under the same UUID is
    // impossible, but one from before a change of clocks or power cap is not.
    constexpr auto max_age = std::chrono::hours(24);
    const auto file = copy_gbs_file(dev, driver);
    if (cached) *cached = false;
    std::error_code ec;
    const auto when = std::filesystem::last_write_time(file, ec);
    if (!ec && std::filesystem::file_time_type::clock::now() - when < max_age) {
        const std::string text = ktune::detail::read_file(file);
        double v = 0;
        const auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (err == std::errc{} && v > 0) {
            if (cached) *cached = true;
            return v;
        }
    }
    const double v = measure_copy_gbs();
    try {
        std::filesystem::create_directories(file.parent_path());
        ktune::detail::write_atomic(file, fmt::format("{:.3f}\n", v));
    } catch (const std::exception&) {
        // No writable cache: measured again next time, still correct.
    }
    return v;
}

} // namespace ktune::tune
