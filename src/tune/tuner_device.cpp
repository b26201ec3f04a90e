// The tuner's device query, recorded per boot, driver and device selection (tuner_device.hpp).
#include "tune/tuner_device.hpp"

#include "core/cache_files.hpp"
#include "ktune/compile/compile.hpp"
#include "ktune/core/error.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdlib>

namespace ktune::tune::detail {
namespace {

using json = nlohmann::json;

/// Everything that can change what query_devices() answers without the record's file name
/// changing is in it: a new boot (a GPU swapped, MIG reconfigured), another driver, another
/// runtime, another device selection. "" where there is no driver (nothing is recorded then).
std::string record_key() {
    const std::string driver = ktune::detail::read_file("/proc/driver/nvidia/version");
    const std::string boot = ktune::detail::read_file("/proc/sys/kernel/random/boot_id");
    if (driver.empty() || boot.empty()) return {};
    int runtime = 0;
    cudaRuntimeGetVersion(&runtime); // no driver call: the linked runtime's own version
    std::uint64_t h = ktune::detail::fnv1a_basis;
    h = ktune::detail::fnv1a(h, driver);
    h = ktune::detail::fnv1a(h, boot);
    h = ktune::detail::fnv1a(h, std::to_string(runtime));
    for (const char* v : {"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER"}) {
        const char* e = std::getenv(v);
        h = ktune::detail::fnv1a(h, fmt::format("{}={}{};", v, e ? "1" : "0", e ? e : ""));
    }
    return fmt::format("{:016x}", h);
}

} // namespace

std::string device_query_to_json(const device_query& q) {
    json j{{"schema", "ktune.device_record"}, {"version", "1.0.0"},
           {"runtime", q.versions.runtime},   {"driver_api", q.versions.driver_api},
           {"driver", q.versions.driver},     {"toolkit_compiled", q.versions.toolkit_compiled},
           {"devices", json::array()}};
    for (const auto& d : q.devices)
        j["devices"].push_back({{"ordinal", d.ordinal},
                                {"name", d.name},
                                {"cc_major", d.cc_major},
                                {"cc_minor", d.cc_minor},
                                {"sm_count", d.sm_count},
                                {"l2_bytes", d.l2_bytes},
                                {"memory_bytes", d.memory_bytes},
                                {"memory_total_bytes", d.memory_total_bytes},
                                {"memory_bus_bits", d.memory_bus_bits},
                                {"memory_clock_khz", d.memory_clock_khz},
                                {"sm_clock_khz", d.sm_clock_khz},
                                {"uuid", d.uuid},
                                {"pci_bus_id", d.pci_bus_id}});
    return j.dump();
}

device_query device_query_from_json(const std::string& text) {
    try {
        const json j = json::parse(text);
        if (j.at("schema") != "ktune.device_record" ||
            j.at("version").get<std::string>().rfind("1.", 0) != 0)
            throw error(error_kind::input, "not a ktune.device_record 1.x");
        device_query q;
        q.versions.runtime = j.at("runtime").get<int>();
        q.versions.driver_api = j.at("driver_api").get<int>();
        q.versions.driver = j.at("driver").get<std::string>();
        q.versions.toolkit_compiled = j.at("toolkit_compiled").get<int>();
        for (const auto& o : j.at("devices")) {
            device_info d;
            d.ordinal = o.at("ordinal").get<int>();
            d.name = o.at("name").get<std::string>();
            d.cc_major = o.at("cc_major").get<int>();
            d.cc_minor = o.at("cc_minor").get<int>();
            d.sm_count = o.at("sm_count").get<int>();
            d.l2_bytes = o.at("l2_bytes").get<std::int64_t>();
            d.memory_bytes = o.at("memory_bytes").get<std::int64_t>();
            d.memory_total_bytes = o.at("memory_total_bytes").get<std::int64_t>();
            d.memory_bus_bits = o.at("memory_bus_bits").get<int>();
            d.memory_clock_khz = o.at("memory_clock_khz").get<int>();
            d.sm_clock_khz = o.at("sm_clock_khz").get<int>();
            d.uuid = o.at("uuid").get<std::string>();
            d.pci_bus_id = o.at("pci_bus_id").get<std::string>();
            q.devices.push_back(std::move(d));
        }
        if (q.devices.empty()) throw error(error_kind::input, "a record without devices");
        return q;
    } catch (const json::exception& e) {
        throw error(error_kind::input, fmt::format("bad device record: {}", e.what()));
    }
}

device_query device_query_cached(bool* from_file, std::filesystem::path* file) {
    if (from_file) *from_file = false;
    if (file) file->clear();
    const std::string key = record_key();
    std::filesystem::path path;
    if (!key.empty()) {
        path = compile::cubin_cache::default_dir() / fmt::format("device-{}.json", key);
        if (file) *file = path;
        const std::string text = ktune::detail::read_file(path);
        if (!text.empty()) {
            try {
                device_query q = device_query_from_json(text);
                if (from_file) *from_file = true;
                return q;
            } catch (const error&) {
                // A damaged record is replaced by a fresh query below.
            }
        }
    }
    device_query q = query_devices();
    if (!path.empty() && !q.devices.empty()) {
        try {
            std::filesystem::create_directories(path.parent_path());
            ktune::detail::write_atomic(path, device_query_to_json(q));
        } catch (const std::exception&) {
            // No writable cache directory: queried again next time, still correct.
        }
    }
    return q;
}

} // namespace ktune::tune::detail
