#include "gpu_probe.hpp"

#include "ktune/core/clocks.hpp"

#include <cuda.h>
#include <dlfcn.h>

#include <cstdio>

namespace ktune::trace::detail {
namespace {

void* loaded_driver() noexcept {
    return dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
}

template <class Fn>
Fn sym(void* lib, const char* name) noexcept {
    return lib ? reinterpret_cast<Fn>(dlsym(lib, name)) : nullptr;
}

std::string format_uuid(const CUuuid& u) {
    char s[64];
    const auto* b = reinterpret_cast<const unsigned char*>(u.bytes);
    std::snprintf(s, sizeof s,
                  "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                  b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                  b[14], b[15]);
    return s;
}

} // namespace

int loaded_driver_version() noexcept {
    void* lib = loaded_driver();
    auto get = sym<CUresult (*)(int*)>(lib, "cuDriverGetVersion");
    int v = 0;
    if (!get || get(&v) != CUDA_SUCCESS) v = 0;
    if (lib) dlclose(lib);
    return v;
}

std::vector<gpu_identity> probe_gpus(const std::vector<std::uint32_t>& devices) noexcept {
    std::vector<gpu_identity> out;
    void* lib = loaded_driver();
    if (!lib) return out;
    auto get = sym<CUresult (*)(CUdevice*, int)>(lib, "cuDeviceGet");
    auto name = sym<CUresult (*)(char*, int, CUdevice)>(lib, "cuDeviceGetName");
    auto uuid = sym<CUresult (*)(CUuuid*, CUdevice)>(lib, "cuDeviceGetUuid_v2");
    auto attr = sym<CUresult (*)(int*, CUdevice_attribute, CUdevice)>(lib, "cuDeviceGetAttribute");
    try {
        for (const std::uint32_t d : devices) {
            CUdevice dev{};
            if (!get || get(&dev, static_cast<int>(d)) != CUDA_SUCCESS) continue;
            gpu_identity g;
            g.device = d;
            char buf[256] = {};
            if (name && name(buf, sizeof buf - 1, dev) == CUDA_SUCCESS) g.name = buf;
            CUuuid u{};
            if (uuid && uuid(&u, dev) == CUDA_SUCCESS) g.uuid = format_uuid(u);
            if (attr) {
                attr(&g.cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
                attr(&g.cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
            }
            device_info info;
            info.uuid = g.uuid;
            if (auto c = read_clocks(info)) {
                g.sm_mhz = c->sm_mhz;
                g.memory_mhz = c->memory_mhz;
                g.throttle_reasons = c->throttle_reasons;
            }
            out.push_back(std::move(g));
        }
    } catch (...) {
    }
    dlclose(lib);
    return out;
}

} // namespace ktune::trace::detail
