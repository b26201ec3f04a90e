#pragma once
// Identity of the CUDA GPUs on this machine. Never throws for "no GPU": the result says so and
// why, because a CPU-only machine is a normal place to run most of ktune.
//
//   auto q = ktune::query_devices();
//   if (q.devices.empty()) std::puts(q.no_device_reason.c_str());

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ktune {

struct device_info {
    int ordinal = 0;
    std::string name; ///< as the driver reports it, e.g. "NVIDIA H200"
    int cc_major = 0; ///< compute capability
    int cc_minor = 0;
    int sm_count = 0;
    std::int64_t l2_bytes = 0;
    std::int64_t memory_bytes = 0;       ///< usable by CUDA (cudaDeviceProp::totalGlobalMem)
    std::int64_t memory_total_bytes = 0; ///< physical, as nvidia-smi reports it (NVML); 0 unknown
    int memory_bus_bits = 0;
    int memory_clock_khz = 0; ///< peak memory clock
    int sm_clock_khz = 0;     ///< peak SM clock
    std::string uuid;         ///< "GPU-xxxxxxxx-xxxx-…" as nvidia-smi prints it
    std::string pci_bus_id;
    [[nodiscard]] std::string arch() const; ///< "sm_90"
    /// Peak DRAM bandwidth from bus width and memory clock (DDR: two transfers per clock).
    [[nodiscard]] double memory_bandwidth_gbs() const;
    bool operator==(const device_info&) const = default;
};

struct version_info {
    int runtime = 0;          ///< cudaRuntimeGetVersion, e.g. 13000
    int driver_api = 0;       ///< cudaDriverGetVersion, 0 without a driver
    std::string driver;       ///< NVML's driver version, e.g. "580.159.04"; empty if unknown
    int toolkit_compiled = 0; ///< CUDART_VERSION ktune was built against
    [[nodiscard]] int driver_major() const; ///< 580 from "580.159.04", 0 if unknown
};

struct device_query {
    std::vector<device_info> devices;
    version_info versions;
    std::string no_device_reason; ///< set when devices is empty
};

/// Query every visible GPU through the CUDA runtime (and NVML for the driver string).
device_query query_devices();

/// "13.0" from 13000.
std::string format_cuda_version(int v);

/// `ktune device --json`: the query and each known GPU's datasheet peaks, schema ktune.device
/// 1.0.0 (docs/formats.md#ktunedevice).
std::string device_report_json(const device_query& q);

} // namespace ktune
