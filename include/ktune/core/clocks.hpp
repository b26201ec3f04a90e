#pragma once
// Live clocks and throttle state of a GPU through NVML (loaded at run time; absent → nullopt).
// The measurement protocol records these next to every timing so a slow sample can be blamed
// on a throttled clock rather than on the kernel.
//
//   if (auto c = ktune::read_clocks(dev)) log(c->sm_mhz, c->throttle_reasons);

#include "ktune/core/device.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace ktune {

struct gpu_clocks {
    unsigned sm_mhz = 0;
    unsigned memory_mhz = 0;
    std::uint64_t throttle_reasons = 0; ///< NVML clocks-event reason bits; 0 or 1 (idle) = none
    unsigned temperature_c = 0;
    unsigned power_mw = 0;
    bool operator==(const gpu_clocks&) const = default;
};

std::optional<gpu_clocks> read_clocks(const device_info& dev);

/// Physical memory size from NVML (what nvidia-smi prints), 0 where NVML is not available.
std::int64_t nvml_memory_total(const std::string& uuid);

/// Driver version string from NVML ("580.159.04"), empty where NVML is not available.
std::string nvml_driver_version();

/// Human-readable names of the throttle bits, e.g. "sw_power_cap,hw_slowdown"; "none" if 0/idle.
std::string describe_throttle_reasons(std::uint64_t reasons);

} // namespace ktune
