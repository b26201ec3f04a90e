// The backlog as JSON (schema ktune.backlog) and as a terminal table.
#include "ktune/store/backlog.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>

namespace ktune::store {
namespace {

std::string short_name(const std::string& s, std::size_t width) {
    return s.size() <= width ? s : s.substr(0, width - 3) + "...";
}

std::string time_text(double ns) {
    if (ns >= 1e9) return fmt::format("{:.2f} s", ns / 1e9);
    if (ns >= 1e6) return fmt::format("{:.2f} ms", ns / 1e6);
    return fmt::format("{:.1f} us", ns / 1e3);
}

} // namespace

std::string backlog_json(const backlog_report& r) {
    nlohmann::ordered_json j;
    j["schema"] = "ktune.backlog";
    j["version"] = "1.0.0";
    j["db"] = r.db;
    j["filter"] = {{"gpu", r.filter.gpu}, {"build", r.filter.build}};
    j["runs"] = r.runs;
    j["kernel_records"] = r.kernels;
    j["total_ns"] = r.total_ns;
    auto& rows = j["kernels"] = nlohmann::ordered_json::array();
    for (const auto& k : r.rows) {
        nlohmann::ordered_json o;
        o["kernel"] = k.kernel;
        o["mangled"] = k.mangled;
        o["launches"] = k.count;
        o["total_ns"] = k.total_ns;
        o["runs"] = k.runs;
        o["share"] = k.share;
        // Whole ns: durations are integers, and the sketch's representatives carry no more.
        o["p50_ns"] = std::llround(k.p50_ns);
        o["p95_ns"] = std::llround(k.p95_ns);
        o["p99_ns"] = std::llround(k.p99_ns);
        o["bound"] = k.bound.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(k.bound);
        o["pct_of_roof"] =
            k.pct_of_roof < 0 ? nlohmann::ordered_json() : nlohmann::ordered_json(k.pct_of_roof);
        o["savable_ns"] =
            k.savable_ns < 0 ? nlohmann::ordered_json() : nlohmann::ordered_json(k.savable_ns);
        o["lever"] = k.lever;
        if (k.tune.op.empty()) {
            o["tune"] = nullptr;
        } else {
            o["tune"] = {{"op", k.tune.op},
                         {"dtype", k.tune.dtype},
                         {"shape", k.tune.shape},
                         {"command", k.tune.command.empty()
                                         ? nlohmann::ordered_json()
                                         : nlohmann::ordered_json(k.tune.command)},
                         {"hint", k.tune.hint}};
        }
        rows.push_back(std::move(o));
    }
    return j.dump(2);
}

std::string format_backlog(const backlog_report& r) {
    std::string out =
        fmt::format("backlog of {} ({} runs, {} kernel records, {} of kernel time", r.db, r.runs,
                    r.kernels, time_text(static_cast<double>(r.total_ns)));
    if (!r.filter.gpu.empty()) out += ", gpu " + r.filter.gpu;
    if (!r.filter.build.empty()) out += ", build " + r.filter.build;
    out += ")\n";
    if (r.rows.empty()) return out + "no kernels stored: `ktune ingest run.ktrace` adds runs\n";
    out += fmt::format("{:>3} {:>6} {:>10} {:>10} {:>9} {:>8} {:>6} {:>10}  {}\n", "#", "share",
                       "time", "launches", "p50", "bound", "%roof", "savable", "kernel");
    std::size_t i = 0;
    for (const auto& k : r.rows) {
        out +=
            fmt::format("{:>3} {:>5.1f}% {:>10} {:>10} {:>9} {:>8} {:>6} {:>10}  {}\n", ++i,
                        100 * k.share, time_text(static_cast<double>(k.total_ns)), k.count,
                        time_text(k.p50_ns), k.bound.empty() ? "-" : k.bound,
                        k.pct_of_roof < 0 ? std::string("-") : fmt::format("{:.0f}", k.pct_of_roof),
                        k.savable_ns < 0 ? std::string("-") : time_text(k.savable_ns),
                        short_name(k.kernel, 80));
        if (!k.tune.command.empty())
            out += fmt::format("{:>12}tune: {}\n", "", k.tune.command);
        else if (!k.tune.hint.empty())
            out += fmt::format("{:>12}tunable as {}: {}\n", "", k.tune.op, k.tune.hint);
    }
    return out;
}

} // namespace ktune::store
