#include "ktune/metrics/kernel_metrics.hpp"

#include "ktune/core/atomic_file.hpp"
#include "ktune/core/error.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

namespace ktune::metrics {
namespace {

using json = nlohmann::json;

[[noreturn]] void bad(std::string_view source, const std::string& path, std::string_view what) {
    throw error(error_kind::input, fmt::format("{}: {}: {}", source, path, what));
}

const json& field(const json& j, const char* key, std::string_view source,
                  const std::string& path) {
    if (!j.contains(key)) bad(source, path + "/" + key, "missing");
    return j.at(key);
}

double number(const json& j, std::string_view source, const std::string& path) {
    if (!j.is_number()) bad(source, path, "expected a number");
    return j.get<double>();
}

std::uint64_t count(const json& j, std::string_view source, const std::string& path) {
    if (!j.is_number_unsigned() && !(j.is_number_integer() && j.get<std::int64_t>() >= 0))
        bad(source, path, "expected a non-negative integer");
    return j.get<std::uint64_t>();
}

std::string text(const json& j, std::string_view source, const std::string& path) {
    if (!j.is_string()) bad(source, path, "expected a string");
    return j.get<std::string>();
}

kernel_sample parse_kernel(const json& k, std::string_view source, const std::string& path) {
    if (!k.is_object()) bad(source, path, "expected an object");
    kernel_sample s;
    s.name = text(field(k, "name", source, path), source, path + "/name");
    if (k.contains("launch_index"))
        s.launch_index = count(k["launch_index"], source, path + "/launch_index");
    if (k.contains("correlation_id"))
        s.correlation_id = count(k["correlation_id"], source, path + "/correlation_id");
    if (k.contains("launches")) s.launches = count(k["launches"], source, path + "/launches");
    if (s.launches == 0) bad(source, path + "/launches", "must be at least 1");
    if (k.contains("pass_launches"))
        s.pass_launches = count(k["pass_launches"], source, path + "/pass_launches");
    if (s.pass_launches == 0) bad(source, path + "/pass_launches", "must be at least 1");
    if (k.contains("work")) s.work = text(k["work"], source, path + "/work");
    if (k.contains("total_time_ns"))
        s.total_time_ns = number(k["total_time_ns"], source, path + "/total_time_ns");
    if (k.contains("mean_gap_ns"))
        s.mean_gap_ns = number(k["mean_gap_ns"], source, path + "/mean_gap_ns");
    const json& values = field(k, "values", source, path);
    if (!values.is_object()) bad(source, path + "/values", "expected an object of metric: value");
    for (const auto& [name, v] : values.items())
        if (!v.is_null()) // null: CUPTI gave no number (NaN), written by older ktune; not a value
            s.values[name] = number(v, source, path + "/values/" + name);
    return s;
}

measured_peaks parse_peaks(const json& m, std::string_view source) {
    if (!m.is_object()) bad(source, "/measured_peaks", "expected an object");
    measured_peaks p;
    if (m.contains("dram_gbs"))
        p.dram_gbs = number(m["dram_gbs"], source, "/measured_peaks/dram_gbs");
    if (m.contains("fp32_tflops"))
        p.fp32_tflops = number(m["fp32_tflops"], source, "/measured_peaks/fp32_tflops");
    if (m.contains("bf16_tensor_tflops"))
        p.bf16_tensor_tflops =
            number(m["bf16_tensor_tflops"], source, "/measured_peaks/bf16_tensor_tflops");
    return p;
}

std::string slurp(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw error(error_kind::io, fmt::format("{}: cannot open for reading", path.string()));
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace

std::string to_json(const kernel_metrics_doc& doc) {
    json j{{"schema", kernel_metrics_schema},
           {"version", kernel_metrics_version},
           {"gpu", doc.gpu},
           {"chip", doc.chip},
           {"metric_set", doc.metric_set},
           {"passes", doc.passes},
           {"dropped_ranges", doc.dropped_ranges},
           {"denied", doc.denied}};
    if (!doc.cache_control.empty()) j["cache_control"] = doc.cache_control;
    j["replay"] = doc.replay;
    j["range"] = doc.range;
    j["incomplete_kernels"] = doc.incomplete_kernels;
    j["incomplete"] = doc.incomplete;
    if (doc.measured)
        j["measured_peaks"] = {{"dram_gbs", doc.measured->dram_gbs},
                               {"fp32_tflops", doc.measured->fp32_tflops},
                               {"bf16_tensor_tflops", doc.measured->bf16_tensor_tflops}};
    json kernels = json::array();
    for (const auto& k : doc.kernels) {
        json kj{{"name", k.name},
                {"launch_index", k.launch_index},
                {"correlation_id", k.correlation_id},
                {"launches", k.launches},
                {"total_time_ns", k.total_time_ns},
                {"mean_gap_ns", k.mean_gap_ns},
                {"pass_launches", k.pass_launches},
                {"values", json::object()}};
        if (!k.work.empty()) kj["work"] = k.work;
        for (const auto& [name, v] : k.values)
            if (std::isfinite(v)) kj["values"][name] = v;
        kernels.push_back(std::move(kj));
    }
    j["kernels"] = std::move(kernels);
    return j.dump(2);
}

kernel_metrics_doc parse_kernel_metrics(std::string_view text_in, std::string_view source) {
    json j;
    try {
        j = json::parse(text_in);
    } catch (const json::parse_error& e) {
        bad(source, fmt::format("byte {}", e.byte), "not valid JSON");
    } catch (const json::exception& e) { // a number beyond double: 1e999
        bad(source, "/", std::string("not usable JSON: ") + e.what());
    }
    if (!j.is_object()) bad(source, "/", "expected a JSON object");
    const std::string schema = text(field(j, "schema", source, ""), source, "/schema");
    if (schema != kernel_metrics_schema)
        bad(source, "/schema",
            fmt::format("is '{}', expected '{}' (write one with ktune's range profiler)", schema,
                        kernel_metrics_schema));
    const std::string version = text(field(j, "version", source, ""), source, "/version");
    if (!version.starts_with("1."))
        bad(source, "/version",
            fmt::format("{} is not readable by this ktune (it reads 1.x): upgrade ktune", version));
    kernel_metrics_doc doc;
    if (j.contains("gpu")) doc.gpu = text(j["gpu"], source, "/gpu");
    if (j.contains("chip")) doc.chip = text(j["chip"], source, "/chip");
    if (j.contains("metric_set")) doc.metric_set = text(j["metric_set"], source, "/metric_set");
    if (j.contains("passes")) doc.passes = count(j["passes"], source, "/passes");
    if (j.contains("dropped_ranges"))
        doc.dropped_ranges = count(j["dropped_ranges"], source, "/dropped_ranges");
    if (j.contains("denied")) {
        if (!j["denied"].is_array()) bad(source, "/denied", "expected an array of names");
        for (std::size_t i = 0; i < j["denied"].size(); ++i)
            doc.denied.push_back(text(j["denied"][i], source, fmt::format("/denied/{}", i)));
    }
    if (j.contains("cache_control"))
        doc.cache_control = text(j["cache_control"], source, "/cache_control");
    if (j.contains("replay")) {
        doc.replay = text(j["replay"], source, "/replay");
        if (doc.replay != "kernel" && doc.replay != "launches")
            bad(source, "/replay", "expected \"kernel\" or \"launches\"");
    }
    if (j.contains("range")) {
        doc.range = text(j["range"], source, "/range");
        if (doc.range != "auto" && doc.range != "user")
            bad(source, "/range", "expected \"auto\" or \"user\"");
    }
    if (j.contains("incomplete_kernels"))
        doc.incomplete_kernels = count(j["incomplete_kernels"], source, "/incomplete_kernels");
    if (j.contains("incomplete")) {
        if (!j["incomplete"].is_array()) bad(source, "/incomplete", "expected an array of names");
        for (std::size_t i = 0; i < j["incomplete"].size(); ++i)
            doc.incomplete.push_back(
                text(j["incomplete"][i], source, fmt::format("/incomplete/{}", i)));
    }
    if (j.contains("measured_peaks")) doc.measured = parse_peaks(j["measured_peaks"], source);
    if (!j.contains("kernels")) bad(source, "/kernels", "missing");
    const json& kernels = j.at("kernels");
    if (!kernels.is_array()) bad(source, "/kernels", "expected an array");
    for (std::size_t i = 0; i < kernels.size(); ++i)
        doc.kernels.push_back(parse_kernel(kernels[i], source, fmt::format("/kernels/{}", i)));
    return doc;
}

kernel_metrics_doc read_kernel_metrics(const std::filesystem::path& path) {
    return parse_kernel_metrics(slurp(path), path.string());
}

measured_peaks read_measured_peaks(const std::filesystem::path& path) {
    const std::string source = path.string();
    json j;
    try {
        j = json::parse(slurp(path));
    } catch (const json::parse_error& e) {
        bad(source, fmt::format("byte {}", e.byte), "not valid JSON");
    } catch (const json::exception& e) { // a number beyond double: 1e999
        bad(source, "/", std::string("not usable JSON: ") + e.what());
    }
    if (!j.is_object() || !j.contains("measured_peaks"))
        bad(source, "/measured_peaks",
            "missing: write the file with `ktune device --measure --json > peaks.json`");
    return parse_peaks(j["measured_peaks"], source);
}

void write_kernel_metrics(const std::filesystem::path& path, const kernel_metrics_doc& doc) {
    write_file_atomically(path, to_json(doc) + '\n');
}

} // namespace ktune::metrics
