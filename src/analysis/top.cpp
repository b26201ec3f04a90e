// Text and JSON forms of the `ktune top` report.
#include "ktune/analysis/top.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <ctime>
#include <map>
#include <set>

namespace ktune::analysis {

std::string format_duration(double ns) {
    if (ns >= 1e9) return fmt::format("{:.2f} s", ns / 1e9);
    if (ns >= 1e6) return fmt::format("{:.2f} ms", ns / 1e6);
    if (ns >= 1e3) return fmt::format("{:.1f} us", ns / 1e3);
    return fmt::format("{:.0f} ns", ns);
}

namespace {

std::string shorten(const std::string& s, std::size_t n) {
    return s.size() <= n ? s : s.substr(0, n - 3) + "...";
}

// A long kernel name loses its middle (template arguments), not its end: the argument list and
// the name's last part often are what tells two instantiations apart.
std::string shorten_middle(const std::string& s, std::size_t n) {
    if (s.size() <= n) return s;
    const std::size_t tail = (n - 3) / 3, head = n - 3 - tail;
    return s.substr(0, head) + "..." + s.substr(s.size() - tail);
}

std::uint32_t name_tag(const std::string& s) {
    std::uint32_t h = 2166136261u; // FNV-1a
    for (const unsigned char c : s) {
        h ^= c;
        h *= 16777619u;
    }
    return h & 0xffffu;
}

} // namespace

std::vector<std::string> distinct_short_names(const std::vector<std::string>& names,
                                              std::size_t width) {
    std::vector<std::string> out;
    out.reserve(names.size());
    std::map<std::string, std::set<std::string>> full_of;
    for (const auto& n : names) {
        out.push_back(shorten_middle(n, width));
        full_of[out.back()].insert(n);
    }
    // Distinct names that still read the same get a tag from a hash of the whole name (stable
    // from run to run), and a counter in the rare case the tags collide too.
    std::set<std::string> used;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (full_of[out[i]].size() <= 1) {
            used.insert(out[i]);
            continue;
        }
        const std::string tag = fmt::format(" #{:04x}", name_tag(names[i]));
        std::string t =
            shorten_middle(names[i], width > tag.size() + 8 ? width - tag.size() : 8) + tag;
        for (int k = 2; used.contains(t); ++k)
            t = shorten_middle(names[i], width > tag.size() + 12 ? width - tag.size() - 4 : 8) +
                tag + fmt::format("-{}", k);
        used.insert(t);
        out[i] = std::move(t);
    }
    return out;
}

namespace {

std::string utc(std::int64_t unix_ns) {
    if (unix_ns <= 0) return "unknown time";
    const std::time_t t = static_cast<std::time_t>(unix_ns / 1000000000);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char b[32];
    std::strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S UTC", &tm);
    return b;
}

std::string command(const trace::trace_environment& e) {
    std::string s;
    for (const auto& a : e.command_line)
        s += (s.empty() ? "" : " ") + a;
    return s.empty() ? std::string("(command not recorded)") : shorten(s, 60);
}

std::string gpus(const trace::trace_environment& e) {
    if (e.gpus.empty()) return "GPU not recorded";
    std::string s;
    for (const auto& g : e.gpus)
        s += fmt::format("{}{} (sm_{}{})", s.empty() ? "" : ", ", g.name, g.cc_major, g.cc_minor);
    return s;
}

} // namespace

std::string format_top(const aggregate_report& r, std::size_t limit) {
    std::string o;
    o += fmt::format("ktune top: {} trace{}, grouped by {}\n", r.traces.size(),
                     r.traces.size() == 1 ? "" : "s", to_string(r.by));
    for (const auto& t : r.traces) {
        const auto& e = t.environment;
        o += fmt::format("  {}: {} | {} | pid {} on {}, {}\n", t.path, command(e), gpus(e), e.pid,
                         e.host.empty() ? "?" : e.host, utc(e.start_unix_ns));
        const auto& c = t.counters;
        o += fmt::format("    {} kernels, {} memcpy, {} memset, {} syncs, {} NVTX ranges; dropped "
                         "{}{}; {} without timestamps\n",
                         c.kernels, c.memcpys, c.memsets, c.syncs, c.nvtx_ranges, c.dropped(),
                         c.dropped() ? fmt::format(" (CUPTI {}, ktune {})", c.dropped_by_cupti,
                                                   c.dropped_by_ktune)
                                     : "",
                         c.zero_timestamps);
        if (c.nvtx_ranges > 0 && e.nvtx_link == "window")
            o += "    NVTX: kernels attributed by range boundaries (window; see "
                 "docs/perf/profile.md)\n";
        if (!t.complete) o += fmt::format("    INCOMPLETE: {}\n", t.damage);
    }
    const auto& f = r.timeline;
    if (f.kernels > 0) {
        o += fmt::format("GPU timeline: busy {:.1f} % of {}; {} idle gaps ({} over 10 us), idle "
                         "{}, largest gap {}\n",
                         f.busy_pct, format_duration(static_cast<double>(f.span_ns)), f.gaps,
                         f.gaps_over_10us, format_duration(static_cast<double>(f.idle_ns)),
                         format_duration(static_cast<double>(f.largest_gap_ns)));
        const double pct =
            100.0 * static_cast<double>(f.shorter_than_gap) / static_cast<double>(f.kernels);
        if (f.launch_bound)
            o += fmt::format("  launch-bound hint: {:.0f} % of kernels are shorter than the idle "
                             "gap before them; the CPU sets the pace (fuse kernels or use CUDA "
                             "graphs)\n",
                             pct);
        else if (f.busy_pct < 50)
            // Idle most of the time, yet kernels mostly outlast the gap before them: the idle
            // time lies in a few long gaps (start-up, data loading, host work), not in launches.
            o += fmt::format("  the GPU idles in a few long gaps (host work between bursts of "
                             "kernels), not between launches: only {:.0f} % of kernels are "
                             "shorter than the idle gap before them\n",
                             pct);
        else
            o += fmt::format("  {:.0f} % of kernels are shorter than the idle gap before them: "
                             "launch overhead does not limit the GPU\n",
                             pct);
    }
    if (r.rows.empty()) {
        o += r.nvtx_host_time ? "no NVTX ranges in the trace\n" : "no timed kernels\n";
        return o;
    }
    const bool nvtx = r.by == group_by::nvtx || r.by == group_by::nvtx_path;
    if (r.nvtx_host_time)
        o += "\nthe kernels carry no NVTX range (an older trace): ranges by their own host time, "
             "share of the span\n";
    else if (nvtx)
        o += "\nkernel time by the NVTX range open on the launching thread\n";
    o += fmt::format("\n{:>6} {:>10} {:>9} {:>10} {:>10} {:>10}  {}\n", "share", "total", "count",
                     "mean", "p50", "p95", nvtx ? "NVTX range" : "kernel");
    const std::size_t n = limit == 0 ? r.rows.size() : std::min(limit, r.rows.size());
    std::vector<std::string> names;
    for (std::size_t i = 0; i < n; ++i)
        names.push_back(r.rows[i].name);
    const auto shown = distinct_short_names(names, 90);
    for (std::size_t i = 0; i < n; ++i) {
        const auto& row = r.rows[i];
        const auto& s = row.stats;
        o += fmt::format("{:>5.1f}% {:>10} {:>9} {:>10} {:>10} {:>10}  {}\n", 100 * row.share,
                         format_duration(static_cast<double>(s.total_ns)), s.count,
                         format_duration(s.mean_ns), format_duration(s.p50_ns),
                         format_duration(s.p95_ns), shown[i]);
        if (!row.shape.empty()) o += fmt::format("{:>60}  {}\n", "", row.shape);
    }
    if (n < r.rows.size()) {
        double rest = 0;
        for (std::size_t i = n; i < r.rows.size(); ++i)
            rest += r.rows[i].share;
        o += fmt::format("({} more, {:.1f} % of the time; --limit 0 shows all)\n",
                         r.rows.size() - n, 100 * rest);
    }
    if (!r.nvtx_host_time)
        o += fmt::format("total kernel time {} over {} kernels\n",
                         format_duration(static_cast<double>(r.total_ns)), f.kernels);
    return o;
}

std::string top_json(const aggregate_report& r, std::size_t limit) {
    // 1.1.0: "nvtx_host_time" (by NVTX: true when rows are ranges' own host time).
    nlohmann::json j{{"schema", "ktune.top"},
                     {"version", "1.1.0"},
                     {"by", to_string(r.by)},
                     {"nvtx_host_time", r.nvtx_host_time}};
    j["traces"] = nlohmann::json::array();
    for (const auto& t : r.traces) {
        const auto& c = t.counters;
        nlohmann::json g = nlohmann::json::array();
        for (const auto& x : t.environment.gpus)
            g.push_back({{"device", x.device},
                         {"name", x.name},
                         {"uuid", x.uuid},
                         {"arch", fmt::format("sm_{}{}", x.cc_major, x.cc_minor)}});
        j["traces"].push_back({{"path", t.path},
                               {"complete", t.complete},
                               {"damage", t.damage},
                               {"command_line", t.environment.command_line},
                               {"host", t.environment.host},
                               {"pid", t.environment.pid},
                               {"gpus", g},
                               {"kernels", c.kernels},
                               {"memcpys", c.memcpys},
                               {"memsets", c.memsets},
                               {"syncs", c.syncs},
                               {"nvtx_ranges", c.nvtx_ranges},
                               {"dropped_by_cupti", c.dropped_by_cupti},
                               {"dropped_by_ktune", c.dropped_by_ktune},
                               {"zero_timestamps", c.zero_timestamps}});
    }
    const auto& f = r.timeline;
    j["timeline"] = {{"span_ns", f.span_ns},
                     {"busy_ns", f.busy_ns},
                     {"busy_pct", f.busy_pct},
                     {"gaps", f.gaps},
                     {"gaps_over_10us", f.gaps_over_10us},
                     {"idle_ns", f.idle_ns},
                     {"largest_gap_ns", f.largest_gap_ns},
                     {"kernels", f.kernels},
                     {"shorter_than_gap", f.shorter_than_gap},
                     {"launch_bound", f.launch_bound}};
    j["total_ns"] = r.total_ns;
    j["untimed"] = r.untimed;
    j["rows"] = nlohmann::json::array();
    const std::size_t n = limit == 0 ? r.rows.size() : std::min(limit, r.rows.size());
    for (std::size_t i = 0; i < n; ++i) {
        const auto& row = r.rows[i];
        const auto& s = row.stats;
        j["rows"].push_back({{"name", row.name},
                             {"mangled", row.mangled},
                             {"shape", row.shape},
                             {"share", row.share},
                             {"count", s.count},
                             {"total_ns", s.total_ns},
                             {"mean_ns", s.mean_ns},
                             {"p50_ns", s.p50_ns},
                             {"p95_ns", s.p95_ns},
                             {"min_ns", s.min_ns},
                             {"max_ns", s.max_ns}});
    }
    j["rows_omitted"] = r.rows.size() - n;
    return j.dump(2);
}

} // namespace ktune::analysis
