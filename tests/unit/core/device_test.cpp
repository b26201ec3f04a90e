#include "catch.hpp"

#include "ktune/core/device.hpp"

#include <cuda_runtime_api.h>

TEST_CASE("device query never throws and explains an empty result") {
    ktune::device_query q;
    REQUIRE_NOTHROW(q = ktune::query_devices());
    CHECK(q.versions.toolkit_compiled == CUDART_VERSION);
    if (q.devices.empty()) {
        CHECK_FALSE(q.no_device_reason.empty());
    } else {
        for (const auto& d : q.devices) {
            CHECK(d.sm_count > 0);
            CHECK(d.arch().rfind("sm_", 0) == 0);
            CHECK(d.uuid.rfind("GPU-", 0) == 0);
        }
    }
}

TEST_CASE("derived device values") {
    ktune::device_info d;
    d.cc_major = 9;
    d.cc_minor = 0;
    d.memory_bus_bits = 5120;
    d.memory_clock_khz = 2619000; // H100 SXM: 2 * 2.619 GHz * 640 B = 3352 GB/s
    CHECK(d.arch() == "sm_90");
    CHECK(d.memory_bandwidth_gbs() == Approx(3352.3).epsilon(0.001));
    ktune::version_info v;
    v.driver = "580.159.04";
    CHECK(v.driver_major() == 580);
    CHECK(ktune::format_cuda_version(13000) == "13.0");
    CHECK(ktune::format_cuda_version(12060) == "12.6");
    CHECK(ktune::format_cuda_version(0) == "none");
}
