#include "ktune/core/device.hpp"
#include "ktune/core/clocks.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cstdlib>

namespace ktune {
namespace {

std::string format_uuid(const cudaUUID_t& u) {
    const auto* b = reinterpret_cast<const unsigned char*>(u.bytes);
    return fmt::format("GPU-{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-"
                       "{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
                       b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11],
                       b[12], b[13], b[14], b[15]);
}

int attribute(cudaDeviceAttr attr, int dev) {
    int v = 0;
    if (cudaDeviceGetAttribute(&v, attr, dev) != cudaSuccess) v = 0;
    return v;
}

} // namespace

std::string device_info::arch() const {
    return fmt::format("sm_{}{}", cc_major, cc_minor);
}

double device_info::memory_bandwidth_gbs() const {
    return 2.0 * memory_clock_khz * 1e3 * (memory_bus_bits / 8.0) / 1e9;
}

int version_info::driver_major() const {
    return driver.empty() ? 0 : std::atoi(driver.c_str());
}

std::string format_cuda_version(int v) {
    return v <= 0 ? std::string("none") : fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
}

device_query query_devices() {
    device_query q;
    q.versions.toolkit_compiled = CUDART_VERSION;
    cudaRuntimeGetVersion(&q.versions.runtime);
    if (cudaDriverGetVersion(&q.versions.driver_api) != cudaSuccess) q.versions.driver_api = 0;
    q.versions.driver = nvml_driver_version();

    int count = 0;
    const cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess || count == 0) {
        q.no_device_reason =
            rc == cudaSuccess
                ? std::string("no CUDA GPU is visible (cudaGetDeviceCount returned 0; check "
                              "CUDA_VISIBLE_DEVICES)")
                : fmt::format("no CUDA GPU: {} ({})", cudaGetErrorName(rc), cudaGetErrorString(rc));
        cudaGetLastError(); // do not leave a sticky "no device" error for the next runtime call
        return q;
    }
    for (int i = 0; i < count; ++i) {
        cudaDeviceProp p{};
        if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
        device_info d;
        d.ordinal = i;
        d.name = p.name;
        d.cc_major = p.major;
        d.cc_minor = p.minor;
        d.sm_count = p.multiProcessorCount;
        d.l2_bytes = p.l2CacheSize;
        d.memory_bytes = static_cast<std::int64_t>(p.totalGlobalMem);
        d.memory_bus_bits = p.memoryBusWidth;
        // CUDA 13 dropped the clock fields from cudaDeviceProp; the attributes remain.
        d.memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, i);
        d.sm_clock_khz = attribute(cudaDevAttrClockRate, i);
        d.uuid = format_uuid(p.uuid);
        d.memory_total_bytes = nvml_memory_total(d.uuid);
        char bus[32] = {};
        if (cudaDeviceGetPCIBusId(bus, sizeof bus, i) == cudaSuccess) d.pci_bus_id = bus;
        q.devices.push_back(std::move(d));
    }
    if (q.devices.empty()) q.no_device_reason = "CUDA reports GPUs but none could be queried";
    return q;
}

} // namespace ktune
