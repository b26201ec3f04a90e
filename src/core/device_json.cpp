// `ktune device --json` (docs/formats.md#ktunedevice): the device query and each GPU's
// datasheet peaks.
#include "ktune/core/device.hpp"
#include "ktune/core/gpu_peaks.hpp"

#include <nlohmann/json.hpp>

namespace ktune {
namespace {

nlohmann::json peaks_json(const gpu_peaks& g) {
    return {{"name", g.name},
            {"arch", g.arch},
            {"fp32_tflops", g.fp32_tflops},
            {"fp64_tflops", g.fp64_tflops},
            {"fp16_tensor_tflops", g.fp16_tensor_tflops},
            {"tf32_tensor_tflops", g.tf32_tensor_tflops},
            {"fp8_tensor_tflops", g.fp8_tensor_tflops},
            {"dram_gbs", g.dram_gbs},
            {"source", g.source}};
}

} // namespace

std::string device_report_json(const device_query& q) {
    nlohmann::json j{{"schema", "ktune.device"},
                     {"version", "1.0.0"},
                     {"runtime", format_cuda_version(q.versions.runtime)},
                     {"driver", q.versions.driver},
                     {"driver_api", format_cuda_version(q.versions.driver_api)},
                     {"devices", nlohmann::json::array()}};
    if (q.devices.empty()) j["no_device_reason"] = q.no_device_reason;
    for (const auto& d : q.devices) {
        nlohmann::json dj{{"ordinal", d.ordinal},
                          {"name", d.name},
                          {"arch", d.arch()},
                          {"sm_count", d.sm_count},
                          {"l2_bytes", d.l2_bytes},
                          {"memory_bytes", d.memory_bytes},
                          {"memory_bus_bits", d.memory_bus_bits},
                          {"memory_clock_khz", d.memory_clock_khz},
                          {"sm_clock_khz", d.sm_clock_khz},
                          {"uuid", d.uuid},
                          {"pci_bus_id", d.pci_bus_id}};
        if (auto p = find_gpu_peaks(d.name)) dj["spec_peaks"] = peaks_json(*p);
        j["devices"].push_back(std::move(dj));
    }
    return j.dump(2);
}

} // namespace ktune
