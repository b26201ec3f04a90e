// `ktune device --json` against its golden file (docs/formats.md#ktunedevice): a synthetic
// H100 query, so the bytes are the same on every machine.
#include "catch.hpp"

#include "ktune/core/device.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace {

/// The golden file's text; KTUNE_UPDATE_GOLDEN=1 rewrites it from `actual` first.
std::string golden(const char* name, const std::string& actual) {
    const std::string path = std::string(KTUNE_TEST_DATA_DIR) + "/reports/" + name;
    if (std::getenv("KTUNE_UPDATE_GOLDEN")) std::ofstream(path) << actual;
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

} // namespace

TEST_CASE("ktune.device JSON matches its golden file") {
    ktune::device_query q;
    q.versions.runtime = 13000;
    q.versions.driver_api = 13000;
    q.versions.driver = "580.95.05";
    ktune::device_info d;
    d.ordinal = 0;
    d.name = "NVIDIA H100 80GB HBM3";
    d.cc_major = 9;
    d.cc_minor = 0;
    d.sm_count = 132;
    d.l2_bytes = 52428800;
    d.memory_bytes = 84929347584;
    d.memory_bus_bits = 5120;
    d.memory_clock_khz = 2619000;
    d.sm_clock_khz = 1980000;
    d.uuid = "GPU-00000000-1111-2222-3333-444444444444";
    d.pci_bus_id = "00000000:19:00.0";
    q.devices.push_back(d);
    const std::string actual = ktune::device_report_json(q) + "\n";
    CHECK(actual == golden("device.json", actual));
}

TEST_CASE("ktune.device JSON without a GPU says why") {
    ktune::device_query q;
    q.no_device_reason = "no CUDA driver";
    const std::string actual = ktune::device_report_json(q) + "\n";
    CHECK(actual == golden("device_none.json", actual));
}
