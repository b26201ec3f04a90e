// The tuner's recorded device query (src/tune/tuner_device.hpp): its JSON round trip, a damaged
// record refused, and no record where there is no driver (this CPU-only machine in CI).
#include "catch.hpp"

#include "ktune/core/error.hpp"
#include "tune/tuner_device.hpp"

#include <filesystem>

using namespace ktune;

TEST_CASE("a device record round-trips; a damaged one is refused") {
    device_query q;
    q.versions.runtime = 13000;
    q.versions.driver_api = 13000;
    q.versions.driver = "580.159.04";
    q.versions.toolkit_compiled = 13000;
    device_info d;
    d.name = "NVIDIA H200";
    d.cc_major = 9;
    d.l2_bytes = 62914560;
    d.memory_bytes = 150754820096;
    d.memory_total_bytes = 150754820096;
    d.memory_bus_bits = 6144;
    d.memory_clock_khz = 3201000;
    d.sm_clock_khz = 1980000;
    d.sm_count = 132;
    d.uuid = "GPU-8c1f0000-0000-0000-0000-000000000000";
    d.pci_bus_id = "00000000:19:00.0";
    q.devices.push_back(d);
    const auto back = tune::detail::device_query_from_json(tune::detail::device_query_to_json(q));
    REQUIRE(back.devices.size() == 1);
    CHECK(back.devices.front() == d);
    CHECK(back.versions.driver == "580.159.04");
    CHECK(back.versions.driver_major() == 580);
    CHECK(back.devices.front().arch() == "sm_90");
    CHECK_THROWS_AS(tune::detail::device_query_from_json("{\"schema\": \"ktune.device_record\"}"),
                    error);
    CHECK_THROWS_AS(tune::detail::device_query_from_json("not json"), error);
    auto none = q;
    none.devices.clear();
    CHECK_THROWS_AS(tune::detail::device_query_from_json(tune::detail::device_query_to_json(none)),
                    error);
}

TEST_CASE("without a driver the query is made and nothing is recorded") {
    if (std::filesystem::exists("/proc/driver/nvidia/version")) return; // a GPU machine
    bool from_file = true;
    std::filesystem::path file = "x";
    const auto q = tune::detail::device_query_cached(&from_file, &file);
    CHECK_FALSE(from_file);
    CHECK(file.empty());
    CHECK(q.devices.empty());
    CHECK_FALSE(q.no_device_reason.empty());
}
