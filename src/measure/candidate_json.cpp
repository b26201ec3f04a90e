#include "ktune/measure/candidate.hpp"

#include "core/config_json.hpp"
#include "ktune/core/error.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ktune::measure {
namespace {

using json = nlohmann::ordered_json;

constexpr std::string_view status_names[] = {
    "ok", "launch_error", "wrong_result", "timeout", "resource_limit", "worker_died", "load_error"};

json policy_json(const measure_policy& p) {
    return {{"warmup", p.warmup},
            {"min_samples", p.min_samples},
            {"max_samples", p.max_samples},
            {"target_rel_ci", p.target_rel_ci},
            {"max_ms", p.max_ms},
            {"flush_l2", p.flush_l2},
            {"restore_in_place", p.restore_in_place}};
}

template <class T>
T field(const json& j, const char* name) {
    const auto it = j.find(name);
    if (it == j.end())
        throw error(error_kind::input, fmt::format("worker message lacks '{}'", name));
    try {
        return it->get<T>();
    } catch (const nlohmann::json::exception& e) {
        throw error(error_kind::input, fmt::format("worker message: '{}': {}", name, e.what()));
    }
}

json parse_line(std::string_view line) {
    try {
        return json::parse(line);
    } catch (const nlohmann::json::exception& e) {
        throw error(error_kind::input, fmt::format("malformed worker message: {}", e.what()));
    }
}

json dims_json(const launch_dims& d) {
    return {{"grid", d.grid}, {"block", d.block}, {"shared_bytes", d.shared_bytes}};
}

launch_dims dims_from(const json& j) {
    launch_dims d;
    d.grid = field<std::array<std::uint32_t, 3>>(j, "grid");
    d.block = field<std::array<std::uint32_t, 3>>(j, "block");
    d.shared_bytes = field<std::uint32_t>(j, "shared_bytes");
    return d;
}

json job_json(const kernel_job& k) {
    json args = json::array();
    for (const auto& a : k.args) {
        if (a.buffer) {
            json b{{"type", a.type},
                   {"elements", a.elements},
                   {"input", a.input},
                   {"output", a.output}};
            if (!a.input_file.empty()) b["input_file"] = a.input_file;
            if (!a.reference_file.empty()) b["reference_file"] = a.reference_file;
            args.push_back(std::move(b));
        } else
            args.push_back({{"type", a.type}, {"value", a.value}});
    }
    return {{"problem", k.problem},
            {"args", std::move(args)},
            {"launch", dims_json(k.launch)},
            {"reference_cubin", k.reference_cubin},
            {"reference_kernel", k.reference_kernel},
            {"reference_launch", dims_json(k.reference_launch)},
            {"rtol", k.rtol},
            {"atol", k.atol},
            {"input_seed", k.input_seed}};
}

kernel_job job_from(const json& j) {
    kernel_job k;
    k.problem = field<std::string>(j, "problem");
    for (const json& a : field<json>(j, "args")) {
        kernel_arg_job x;
        x.type = field<std::string>(a, "type");
        x.buffer = !a.contains("value");
        if (x.buffer) {
            x.elements = field<std::int64_t>(a, "elements");
            x.input = field<std::string>(a, "input");
            x.output = field<bool>(a, "output");
            x.input_file = a.value("input_file", std::string());
            x.reference_file = a.value("reference_file", std::string());
        } else {
            x.value = field<std::int64_t>(a, "value");
        }
        k.args.push_back(std::move(x));
    }
    k.launch = dims_from(field<json>(j, "launch"));
    k.reference_cubin = field<std::string>(j, "reference_cubin");
    k.reference_kernel = field<std::string>(j, "reference_kernel");
    k.reference_launch = dims_from(field<json>(j, "reference_launch"));
    k.rtol = field<double>(j, "rtol");
    k.atol = field<double>(j, "atol");
    k.input_seed = field<std::uint64_t>(j, "input_seed");
    return k;
}

} // namespace

std::string_view to_string(run_status s) noexcept {
    return status_names[static_cast<int>(s)];
}

run_status run_status_from_string(std::string_view s) {
    for (std::size_t i = 0; i < std::size(status_names); ++i)
        if (status_names[i] == s) return static_cast<run_status>(i);
    throw error(error_kind::input, fmt::format("unknown run status '{}'", std::string(s)));
}

std::string encode(const candidate_request& r) {
    json j{{"op", r.op},
           {"rows", r.rows},
           {"cols", r.cols},
           {"dtype", r.dtype},
           {"config", detail::config_to_json(r.cfg)},
           {"cubin", r.cubin_path},
           {"kernel", r.kernel},
           {"seed", r.seed},
           {"check", r.check},
           {"time", r.time},
           {"policy", policy_json(r.policy)}};
    if (r.prepare) j["prepare"] = true;
    if (!r.job.empty()) j["job"] = job_json(r.job);
    return j.dump();
}

std::string encode(const candidate_result& r) {
    json j{{"status", to_string(r.status)},
           {"message", r.message},
           {"samples_ms", r.samples_ms},
           {"median_ms", r.median_ms},
           {"ci_lo_ms", r.ci_lo_ms},
           {"ci_hi_ms", r.ci_hi_ms},
           {"max_error", r.max_error},
           {"bad_elements", r.bad_elements},
           {"registers", r.registers},
           {"clocks_known", r.clocks_known},
           {"sm_mhz", r.clocks.sm_mhz},
           {"memory_mhz", r.clocks.memory_mhz},
           {"throttle_reasons", r.clocks.throttle_reasons},
           {"temperature_c", r.clocks.temperature_c},
           {"power_mw", r.clocks.power_mw},
           {"gpu_busy_ms", r.gpu_busy_ms},
           {"worker_ms", r.worker_ms},
           {"load_ms", r.load_ms},
           {"check_ms", r.check_ms},
           {"timing_ms", r.timing_ms},
           {"setup_ms", r.setup_ms},
           {"fatal", r.fatal}};
    if (!r.setup_marks.empty()) j["setup_marks"] = r.setup_marks;
    if (!r.device_uuid.empty()) j["device_uuid"] = r.device_uuid;
    // error_handler replace: a compile log or driver message is not guaranteed to be UTF-8.
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

candidate_request decode_request(std::string_view line) {
    const json j = parse_line(line);
    candidate_request r;
    r.op = field<std::string>(j, "op");
    r.rows = field<std::int64_t>(j, "rows");
    r.cols = field<std::int64_t>(j, "cols");
    r.dtype = field<std::string>(j, "dtype");
    r.cfg = detail::config_from_json(field<json>(j, "config"));
    r.cubin_path = field<std::string>(j, "cubin");
    r.kernel = field<std::string>(j, "kernel");
    r.seed = field<std::uint64_t>(j, "seed");
    r.check = field<bool>(j, "check");
    r.time = field<bool>(j, "time");
    const json p = field<json>(j, "policy");
    r.policy.warmup = field<int>(p, "warmup");
    r.policy.min_samples = field<int>(p, "min_samples");
    r.policy.max_samples = field<int>(p, "max_samples");
    r.policy.target_rel_ci = field<double>(p, "target_rel_ci");
    r.policy.max_ms = field<double>(p, "max_ms");
    r.policy.flush_l2 = field<bool>(p, "flush_l2");
    r.policy.restore_in_place = field<bool>(p, "restore_in_place");
    r.prepare = j.value("prepare", false);
    if (j.contains("job")) r.job = job_from(field<json>(j, "job"));
    return r;
}

candidate_result decode_result(std::string_view line) {
    const json j = parse_line(line);
    candidate_result r;
    r.status = run_status_from_string(field<std::string>(j, "status"));
    r.message = field<std::string>(j, "message");
    r.samples_ms = field<std::vector<double>>(j, "samples_ms");
    r.median_ms = field<double>(j, "median_ms");
    r.ci_lo_ms = field<double>(j, "ci_lo_ms");
    r.ci_hi_ms = field<double>(j, "ci_hi_ms");
    r.max_error = field<double>(j, "max_error");
    r.bad_elements = field<std::int64_t>(j, "bad_elements");
    r.registers = field<int>(j, "registers");
    r.clocks_known = field<bool>(j, "clocks_known");
    r.clocks.sm_mhz = field<unsigned>(j, "sm_mhz");
    r.clocks.memory_mhz = field<unsigned>(j, "memory_mhz");
    r.clocks.throttle_reasons = field<std::uint64_t>(j, "throttle_reasons");
    r.clocks.temperature_c = field<unsigned>(j, "temperature_c");
    r.clocks.power_mw = field<unsigned>(j, "power_mw");
    r.gpu_busy_ms = field<double>(j, "gpu_busy_ms");
    r.worker_ms = field<double>(j, "worker_ms");
    r.load_ms = field<double>(j, "load_ms");
    r.check_ms = field<double>(j, "check_ms");
    r.timing_ms = field<double>(j, "timing_ms");
    r.setup_ms = j.value("setup_ms", 0.0); // absent from workers older than the field
    if (j.contains("setup_marks"))
        r.setup_marks = field<std::vector<std::pair<std::string, double>>>(j, "setup_marks");
    r.device_uuid = j.value("device_uuid", std::string());
    r.fatal = field<bool>(j, "fatal");
    return r;
}

} // namespace ktune::measure
