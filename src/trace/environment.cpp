// JSON form of trace_environment: the header and trailer chunks of a .ktrace file.
#include "ktune/trace/environment.hpp"
#include "ktune/core/error.hpp"

#include <nlohmann/json.hpp>

namespace ktune::trace {

std::string to_json(const trace_environment& e) {
    nlohmann::json gpus = nlohmann::json::array();
    for (const auto& g : e.gpus)
        gpus.push_back({{"device", g.device},
                        {"name", g.name},
                        {"uuid", g.uuid},
                        {"cc", std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor)},
                        {"sm_mhz", g.sm_mhz},
                        {"memory_mhz", g.memory_mhz},
                        {"throttle_reasons", g.throttle_reasons}});
    const nlohmann::json j{{"ktune_version", e.ktune_version},
                           {"host", e.host},
                           {"command_line", e.command_line},
                           {"pid", e.pid},
                           {"start_unix_ns", e.start_unix_ns},
                           {"start_trace_ns", e.start_trace_ns},
                           {"cupti_version", e.cupti_version},
                           {"toolkit_version", e.toolkit_version},
                           {"nvtx_link", e.nvtx_link},
                           {"graph_trace", e.graph_trace},
                           {"kernel_timestamps", e.kernel_timestamps},
                           {"driver_api_version", e.driver_api_version},
                           {"driver_version", e.driver_version},
                           {"gpus", gpus}};
    return j.dump();
}

trace_environment environment_from_json(const std::string& text) {
    trace_environment e;
    try {
        const auto j = nlohmann::json::parse(text);
        e.ktune_version = j.value("ktune_version", "");
        e.host = j.value("host", "");
        e.command_line = j.value("command_line", std::vector<std::string>{});
        e.pid = j.value("pid", std::int64_t{0});
        e.start_unix_ns = j.value("start_unix_ns", std::int64_t{0});
        e.start_trace_ns = j.value("start_trace_ns", std::uint64_t{0});
        e.cupti_version = j.value("cupti_version", std::uint32_t{0});
        e.toolkit_version = j.value("toolkit_version", 0);
        e.nvtx_link = j.value("nvtx_link", "");
        e.graph_trace = j.value("graph_trace", "");
        e.kernel_timestamps = j.value("kernel_timestamps", "");
        e.driver_api_version = j.value("driver_api_version", 0);
        e.driver_version = j.value("driver_version", "");
        for (const auto& g : j.value("gpus", nlohmann::json::array())) {
            gpu_identity id;
            id.device = g.value("device", 0u);
            id.name = g.value("name", "");
            id.uuid = g.value("uuid", "");
            const std::string cc = g.value("cc", "0.0");
            const auto dot = cc.find('.');
            id.cc_major = std::stoi(cc.substr(0, dot));
            id.cc_minor = dot == std::string::npos ? 0 : std::stoi(cc.substr(dot + 1));
            id.sm_mhz = g.value("sm_mhz", 0u);
            id.memory_mhz = g.value("memory_mhz", 0u);
            id.throttle_reasons = g.value("throttle_reasons", std::uint64_t{0});
            e.gpus.push_back(std::move(id));
        }
    } catch (const std::exception& ex) {
        throw error(error_kind::input, std::string("trace environment JSON: ") + ex.what());
    }
    return e;
}

} // namespace ktune::trace
