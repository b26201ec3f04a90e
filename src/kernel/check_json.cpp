// The check report as JSON (schema ktune.kernel_check, docs/formats.md#ktunekernel_check) and
// as text.
#include "ktune/kernel/check.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ktune::kernel {
namespace {

using ojson = nlohmann::ordered_json;

ojson dims_json(const problem& p) {
    ojson j = ojson::object();
    for (const auto& [n, v] : p.dims)
        j[n] = v;
    return j;
}

ojson triple(const std::int64_t (&v)[3]) {
    return ojson::array({v[0], v[1], v[2]});
}

} // namespace

std::string check_report_json(const check_report& r) {
    ojson rejected = ojson::array();
    for (std::size_t i = 0; i < r.restrictions.size() && i < r.counts.rejected_by.size(); ++i)
        rejected.push_back(
            {{"restriction", r.restrictions[i]}, {"rejected", r.counts.rejected_by[i]}});
    ojson config = ojson::object();
    for (const auto& entry : r.default_cfg.values())
        std::visit([&](const auto& x) { config[entry.first] = x; }, entry.second);
    ojson buffers = ojson::array();
    for (const auto& b : r.buffers)
        buffers.push_back({{"name", b.name},
                           {"dtype", b.dtype},
                           {"elements", b.elements},
                           {"bytes", b.bytes},
                           {"input", b.input},
                           {"output", b.output}});
    ojson sampled = ojson::array();
    for (const auto& c : r.sampled)
        sampled.push_back({{"config", c.cfg.to_string()},
                           {"ok", c.ok},
                           {"error", c.ok ? ojson(nullptr) : ojson(c.error)}});
    const auto& g = r.default_geometry;
    ojson j{{"schema", "ktune.kernel_check"},
            {"version", "1.0.0"},
            {"spec", r.spec},
            {"name", r.name},
            {"hash", r.hash},
            {"arch", r.arch},
            {"problem", dims_json(r.prob)},
            {"bucket", dims_json(r.bucket)},
            {"space",
             {{"product", r.counts.product},
              {"valid", r.counts.valid},
              {"rejected_by_restriction", rejected},
              {"rejected_by_limits", r.counts.rejected_by_limits},
              {"failed_to_evaluate", r.counts.failed_to_evaluate}}},
            {"default",
             {{"config", config},
              {"name_expression", r.name_expression},
              {"launch",
               {{"grid", triple(g.grid)},
                {"block", triple(g.block)},
                {"shared_bytes", g.shared_bytes},
                {"cluster", triple(g.cluster)}}}}},
            {"buffers", buffers},
            {"model",
             {{"bytes", r.bytes ? ojson(*r.bytes) : ojson(nullptr)},
              {"flops", r.flops ? ojson(*r.flops) : ojson(nullptr)}}},
            {"compile",
             {{"compiled", r.compiled},
              {"lowered_name", r.compiled ? ojson(r.lowered_name) : ojson(nullptr)},
              {"reference_lowered_name",
               r.reference_lowered.empty() ? ojson(nullptr) : ojson(r.reference_lowered)},
              {"sampled", sampled}}}};
    return j.dump(2) + "\n";
}

std::string format_check_report(const check_report& r) {
    const auto& g = r.default_geometry;
    std::string out =
        fmt::format("{}: kernel spec '{}' is valid (hash {})\n", r.spec, r.name, r.hash);
    out +=
        fmt::format("  problem        {} (bucket {})\n", r.prob.to_string(), r.bucket.to_string());
    out += fmt::format("  space          {} valid of {} configs for {}", r.counts.valid,
                       r.counts.product, r.arch);
    out += r.counts.rejected_by_limits
               ? fmt::format(" ({} over the device limits)\n", r.counts.rejected_by_limits)
               : "\n";
    for (std::size_t i = 0; i < r.restrictions.size() && i < r.counts.rejected_by.size(); ++i)
        out += fmt::format("    rejects {:>8}  {}\n", r.counts.rejected_by[i], r.restrictions[i]);
    out += fmt::format("  default        {}\n", r.default_cfg.to_string());
    out += fmt::format("  kernel         {}\n", r.name_expression);
    out += fmt::format("  launch         grid {}x{}x{}, block {}x{}x{}, {} B dynamic shared",
                       g.grid[0], g.grid[1], g.grid[2], g.block[0], g.block[1], g.block[2],
                       g.shared_bytes);
    if (g.cluster[0] * g.cluster[1] * g.cluster[2] > 1)
        out += fmt::format(", cluster {}x{}x{}", g.cluster[0], g.cluster[1], g.cluster[2]);
    out += "\n";
    for (const auto& b : r.buffers)
        out += fmt::format("  buffer         {} {}[{}] {} B{}{}\n", b.name, b.dtype, b.elements,
                           b.bytes, b.input ? " in" : "", b.output ? " out" : "");
    if (r.bytes || r.flops)
        out += fmt::format("  model          {} B, {} FLOP\n", r.bytes ? *r.bytes : 0,
                           r.flops ? *r.flops : 0);
    if (r.compiled)
        out += fmt::format("  compiled       {} with NVRTC in {:.0f} ms ({})\n", r.arch,
                           r.compile_ms, r.lowered_name);
    if (!r.reference_lowered.empty())
        out += fmt::format("  reference      {} compiled\n", r.reference_lowered);
    if (!r.compiled) out += "  compiled       no (--no-compile)\n";
    if (!r.sampled.empty())
        out += fmt::format("  sampled        {} of {} other configs compiled\n",
                           r.sampled.size() - r.sample_failures(), r.sampled.size());
    for (const auto& c : r.sampled)
        if (!c.ok) out += fmt::format("    FAILED       {}: {}\n", c.cfg.to_string(), c.error);
    return out;
}

} // namespace ktune::kernel
