// Measured peaks kept per GPU: measuring takes seconds of a busy GPU, so it is done once by
// `ktune device --measure` and then found by name whenever a trace is recorded on that GPU.
#include "ktune/core/atomic_file.hpp"
#include "ktune/core/env.hpp"
#include "ktune/core/error.hpp"
#include "ktune/core/gpu_peaks.hpp"
#include "ktune/metrics/device_measure.hpp"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdlib>
#include <fstream>

namespace ktune::metrics {

std::filesystem::path saved_peaks_path(std::string_view gpu_name) {
    std::filesystem::path dir;
    if (const char* d = std::getenv(ktune::env::peaks_dir); d && *d)
        dir = d;
    else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
        dir = std::filesystem::path(x) / "ktune" / "peaks";
    else if (const char* h = std::getenv("HOME"); h && *h)
        dir = std::filesystem::path(h) / ".cache" / "ktune" / "peaks";
    else
        dir = std::filesystem::temp_directory_path() / "ktune-peaks";
    std::string file;
    for (const char c : gpu_name)
        file += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return dir / ((file.empty() ? std::string("unknown_gpu") : file) + ".json");
}

std::filesystem::path save_measured_peaks(std::string_view gpu_name, const measured_peaks& p) {
    auto path = saved_peaks_path(gpu_name);
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    const nlohmann::json j{{"schema", "ktune.device_measure"},
                           {"version", "1.0.0"},
                           {"gpu", std::string(gpu_name)},
                           {"measured_peaks",
                            {{"dram_gbs", p.dram_gbs},
                             {"fp32_tflops", p.fp32_tflops},
                             {"bf16_tensor_tflops", p.bf16_tensor_tflops}}}};
    try {
        write_file_atomically(path, j.dump(2) + "\n");
    } catch (const error& e) {
        throw error(error_kind::io, std::string(e.what()) + ": cannot save the measured peaks "
                                                            "(set KTUNE_PEAKS_DIR to a writable "
                                                            "directory)");
    }
    return path;
}

std::optional<std::filesystem::path> find_saved_peaks(std::string_view gpu_name) {
    auto path = saved_peaks_path(gpu_name);
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) return path;
    return std::nullopt;
}

tensor_roof find_tensor_roof(std::string_view gpu_name, bool fp8) {
    double measured = 0;
    if (const auto f = find_saved_peaks(gpu_name)) {
        try {
            measured = read_measured_peaks(*f).bf16_tensor_tflops;
        } catch (const error&) {
        }
    }
    const auto spec = find_gpu_peaks(gpu_name);
    if (fp8) {
        if (measured > 0) return {2 * measured, "measured bf16 x2"};
        return {spec ? spec->fp8_tensor_tflops : 0, "datasheet"};
    }
    if (measured > 0) return {measured, "measured"};
    return {spec ? spec->fp16_tensor_tflops : 0, "datasheet"};
}

} // namespace ktune::metrics
