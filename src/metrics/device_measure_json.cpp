// `ktune device --measure --json` (docs/formats.md#ktunedevice_measure).
#include "ktune/core/gpu_peaks.hpp"
#include "ktune/metrics/device_measure.hpp"

#include <nlohmann/json.hpp>

namespace ktune::metrics {

double spec_rate(std::string_view gpu_name, std::string_view what) {
    const auto spec = find_gpu_peaks(std::string(gpu_name));
    if (!spec) return 0;
    if (what == "copy") return spec->dram_gbs;
    if (what == "fp32_fma") return spec->fp32_tflops;
    return spec->fp16_tensor_tflops;
}

std::string device_measure_json(std::string_view gpu_name, const device_measurement& m,
                                const std::filesystem::path& saved_to) {
    nlohmann::json j{{"schema", "ktune.device_measure"},
                     {"version", "1.0.0"},
                     {"gpu", gpu_name},
                     {"measured_peaks",
                      {{"dram_gbs", m.peaks.dram_gbs},
                       {"fp32_tflops", m.peaks.fp32_tflops},
                       {"bf16_tensor_tflops", m.peaks.bf16_tensor_tflops}}},
                     {"rates", nlohmann::json::array()},
                     {"saved_to", saved_to.string()}};
    for (const auto& r : m.rates)
        j["rates"].push_back({{"what", r.what},
                              {"median", r.median},
                              {"min", r.min},
                              {"max", r.max},
                              {"repeats", r.repeats},
                              {"unit", r.unit},
                              {"detail", r.detail},
                              {"spec", spec_rate(gpu_name, r.what)},
                              {"error", r.error}});
    return j.dump(2);
}

} // namespace ktune::metrics
