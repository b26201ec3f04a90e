#include "core/cache_files.hpp"
#include "ktune/compile/compile.hpp"
#include "ktune/core/check.hpp"
#include "ktune/measure/copy_bandwidth.hpp"
#include "ktune/tune/tuner.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <chrono>
#include <filesystem>

namespace ktune::tune {

double measure_copy_gbs(std::size_t bytes) {
    // The one copy roof, also behind `ktune device --measure` and the roofline's peaks.
    return measure::measure_copy_bandwidth(bytes).median_gbs;
}

std::size_t copy_roof_bytes(double op_bytes) {
    constexpr std::size_t lo = std::size_t{1} << 20, hi = std::size_t{512} << 20;
    const double each_way = op_bytes / 2;
    std::size_t b = lo;
    while (b < hi && static_cast<double>(b) < each_way)
        b *= 2;
    return op_bytes > 0 ? b : hi;
}

std::filesystem::path copy_gbs_file(const device_info& dev, const std::string& driver,
                                    std::size_t bytes) {
    std::string id = dev.uuid.empty() ? dev.name + dev.pci_bus_id : dev.uuid;
    for (char& c : id)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') c = '_';
    // The default size keeps its historical name; other sizes name theirs.
    const std::string size =
        bytes == 0 || bytes == (std::size_t{512} << 20) ? "" : fmt::format("-{}MiB", bytes >> 20);
    return compile::cubin_cache::default_dir() /
           // v4: unrolled copy forms added (v3: the best of several copy forms; v2: cudaMemcpy
           // alone, after a read sweep of L2; v1: copies back to back)
           fmt::format("copy-gbs-v4-{}-driver{}{}.txt", id, driver.empty() ? "unknown" : driver,
                       size);
}

double copy_gbs_for(const device_info& dev, const std::string& driver, bool* cached,
                    std::size_t bytes) {
    // Re-measured after a day: a figure from before a board swap under the same UUID is
    // impossible, but one from before a change of clocks or power cap is not.
    constexpr auto max_age = std::chrono::hours(24);
    const auto file = copy_gbs_file(dev, driver, bytes);
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
    // On the GPU asked about (a plan on several GPUs asks from one thread per GPU; the current
    // device is per thread).
    KTUNE_CUDA_CALL(cudaSetDevice(dev.ordinal));
    const double v = measure_copy_gbs(bytes);
    try {
        std::filesystem::create_directories(file.parent_path());
        ktune::detail::write_atomic(file, fmt::format("{:.3f}\n", v));
    } catch (const std::exception&) {
        // No writable cache: measured again next time, still correct.
    }
    return v;
}

} // namespace ktune::tune
