// Environment fingerprint of a run and the differences that can explain a timing change.
#include "ktune/core/clocks.hpp"
#include "ktune/core/device.hpp"
#include "ktune/guard/series.hpp"

#include <fmt/format.h>

#include <cmath>
#include <unistd.h>

namespace ktune::guard {

environment capture_environment() {
    environment e;
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) == 0) e.host = host;
    const device_query q = query_devices();
    e.driver = q.versions.driver;
    e.runtime = q.versions.runtime ? format_cuda_version(q.versions.runtime) : "";
    e.toolkit = format_cuda_version(q.versions.toolkit_compiled);
    if (q.devices.empty()) return e;
    const device_info& d = q.devices.front();
    e.gpu = d.name;
    e.gpu_uuid = d.uuid;
    e.arch = d.arch();
    if (auto c = read_clocks(d)) {
        e.sm_clock_mhz = c->sm_mhz;
        e.memory_clock_mhz = c->memory_mhz;
        e.throttle_reasons = c->throttle_reasons;
    }
    return e;
}

std::vector<std::string> environment_differences(const environment& a, const environment& b) {
    std::vector<std::string> out;
    const auto text = [&](const char* what, const std::string& x, const std::string& y) {
        if (x != y)
            out.push_back(fmt::format("{} {} -> {}", what, x.empty() ? "(none)" : x,
                                      y.empty() ? "(none)" : y));
    };
    text("GPU", a.gpu, b.gpu);
    text("arch", a.arch, b.arch);
    text("driver", a.driver, b.driver);
    text("CUDA runtime", a.runtime, b.runtime);
    text("toolkit", a.toolkit, b.toolkit);
    // Clocks move a little between reads; only a step beyond 2 % can explain a regression.
    const auto clock = [&](const char* what, unsigned x, unsigned y) {
        if (x && y && std::abs(static_cast<double>(y) - x) > 0.02 * x)
            out.push_back(fmt::format("{} clock {} -> {} MHz", what, x, y));
    };
    clock("SM", a.sm_clock_mhz, b.sm_clock_mhz);
    clock("memory", a.memory_clock_mhz, b.memory_clock_mhz);
    // Bit 0 is "GPU idle", not a slowdown.
    const std::uint64_t ta = a.throttle_reasons & ~1ULL, tb = b.throttle_reasons & ~1ULL;
    if (ta != tb)
        out.push_back(fmt::format("throttle {} -> {}", describe_throttle_reasons(ta),
                                  describe_throttle_reasons(tb)));
    return out;
}

} // namespace ktune::guard
