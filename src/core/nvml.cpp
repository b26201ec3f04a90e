// NVML seam: dlopen'd so ktune needs no NVML at build time and runs where it is absent.
#include "ktune/core/clocks.hpp"

#include <dlfcn.h>

#include <array>
#include <mutex>
#include <string_view>

namespace ktune {
namespace {

using nvml_device = struct nvml_device_st*;
struct nvml_api {
    int (*init)() = nullptr;
    int (*driver_version)(char*, unsigned) = nullptr;
    int (*by_uuid)(const char*, nvml_device*) = nullptr;
    int (*clock_info)(nvml_device, int, unsigned*) = nullptr;
    int (*event_reasons)(nvml_device, unsigned long long*) = nullptr;
    int (*temperature)(nvml_device, int, unsigned*) = nullptr;
    int (*power)(nvml_device, unsigned*) = nullptr;
    int (*memory_info)(nvml_device, unsigned long long*) = nullptr; // nvmlMemory_t* (v1)
    bool ok = false;
};

template <class Fn>
void bind(void* lib, Fn& fn, const char* name) {
    fn = reinterpret_cast<Fn>(dlsym(lib, name));
}

// Loaded once and never unloaded: NVML must outlive every caller, including atexit handlers.
const nvml_api& api() {
    static nvml_api a;
    static std::once_flag once;
    std::call_once(once, [] {
        void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!lib) return;
        bind(lib, a.init, "nvmlInit_v2");
        bind(lib, a.driver_version, "nvmlSystemGetDriverVersion");
        bind(lib, a.by_uuid, "nvmlDeviceGetHandleByUUID");
        bind(lib, a.clock_info, "nvmlDeviceGetClockInfo");
        bind(lib, a.event_reasons, "nvmlDeviceGetCurrentClocksEventReasons");
        if (!a.event_reasons)
            bind(lib, a.event_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
        bind(lib, a.temperature, "nvmlDeviceGetTemperature");
        bind(lib, a.power, "nvmlDeviceGetPowerUsage");
        bind(lib, a.memory_info, "nvmlDeviceGetMemoryInfo");
        a.ok = a.init && a.init() == 0;
    });
    return a;
}

constexpr int k_clock_sm = 1;
constexpr int k_clock_mem = 2;
constexpr int k_temperature_gpu = 0;

} // namespace

std::string nvml_driver_version() {
    const auto& a = api();
    std::array<char, 96> buf{};
    if (!a.ok || !a.driver_version || a.driver_version(buf.data(), buf.size()) != 0) return {};
    return buf.data();
}

std::int64_t nvml_memory_total(const std::string& uuid) {
    const auto& a = api();
    nvml_device d = nullptr;
    if (!a.ok || !a.by_uuid || !a.memory_info || uuid.empty() || a.by_uuid(uuid.c_str(), &d) != 0)
        return 0;
    unsigned long long mem[3] = {}; // nvmlMemory_t v1: total, free, used
    if (a.memory_info(d, mem) != 0) return 0;
    return static_cast<std::int64_t>(mem[0]);
}

std::optional<gpu_clocks> read_clocks(const device_info& dev) {
    const auto& a = api();
    nvml_device d = nullptr;
    if (!a.ok || !a.by_uuid || dev.uuid.empty() || a.by_uuid(dev.uuid.c_str(), &d) != 0)
        return std::nullopt;
    gpu_clocks c;
    if (a.clock_info) {
        a.clock_info(d, k_clock_sm, &c.sm_mhz);
        a.clock_info(d, k_clock_mem, &c.memory_mhz);
    }
    unsigned long long reasons = 0;
    if (a.event_reasons && a.event_reasons(d, &reasons) == 0) c.throttle_reasons = reasons;
    if (a.temperature) a.temperature(d, k_temperature_gpu, &c.temperature_c);
    if (a.power) a.power(d, &c.power_mw);
    return c;
}

std::string describe_throttle_reasons(std::uint64_t reasons) {
    // Bit values from nvml.h (nvmlClocksEventReason*).
    static constexpr std::array<std::pair<std::uint64_t, std::string_view>, 8> k_names{{
        {0x2, "applications_clocks"},
        {0x4, "sw_power_cap"},
        {0x8, "hw_slowdown"},
        {0x10, "sync_boost"},
        {0x20, "sw_thermal"},
        {0x40, "hw_thermal"},
        {0x80, "hw_power_brake"},
        {0x100, "display_clocks"},
    }};
    std::string out;
    for (const auto& [bit, name] : k_names)
        if (reasons & bit) out.append(out.empty() ? "" : ",").append(name);
    return out.empty() ? "none" : out;
}

} // namespace ktune
