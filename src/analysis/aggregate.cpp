// One streaming pass per trace: each record finds its group through a per-trace table indexed
// by the trace's own string id (no hashing of names on the hot path), then adds its duration.
#include "ktune/analysis/aggregate.hpp"

#include "aggregate_quantiles.hpp"
#include "ktune/core/error.hpp"
#include "ktune/trace/trace_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

namespace ktune::analysis {

group_by parse_group_by(std::string_view s) {
    if (s == "kernel") return group_by::kernel;
    if (s == "launch") return group_by::launch;
    if (s == "nvtx") return group_by::nvtx;
    if (s == "nvtx-path") return group_by::nvtx_path;
    throw error(error_kind::usage, "--by " + std::string(s) +
                                       ": unknown grouping; use kernel, launch, nvtx or nvtx-path");
}

std::string_view to_string(group_by g) noexcept {
    switch (g) {
    case group_by::kernel:
        return "kernel";
    case group_by::launch:
        return "launch";
    case group_by::nvtx:
        return "nvtx";
    case group_by::nvtx_path:
        return "nvtx-path";
    }
    return "kernel";
}

namespace {

struct group {
    group_row row;
    bool host_range = false; ///< an NVTX range's own duration, not kernel time inside it
    detail::quantile_sketch sketch;
    std::uint64_t min = std::numeric_limits<std::uint64_t>::max(), max = 0;
    void add(std::uint64_t d) {
        ++row.stats.count;
        row.stats.total_ns += d;
        min = std::min(min, d);
        max = std::max(max, d);
        sketch.add(d);
    }
};

using launch_key = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t,
                              std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t,
                              std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>;

class aggregator final : public trace::trace_visitor {
public:
    aggregator(group_by by, std::vector<group>& groups, std::map<std::string, std::size_t>& index)
        : by_(by), groups_(groups), index_(index) {}

    void begin(const trace::trace_reader* r) {
        reader_ = r;
        by_id_.clear();
        by_range_.clear();
        by_launch_.clear();
    }
    std::uint64_t untimed = 0;
    timeline_builder timeline;

    void on_kernels(std::span<const trace::kernel_record> rs) override {
        for (const auto& k : rs) {
            if (!k.timed()) {
                ++untimed;
                continue;
            }
            timeline.add(k.device, k.start_ns, k.end_ns);
            const std::uint64_t d = k.end_ns - k.start_ns;
            if (by_ == group_by::kernel)
                groups_[group_of(k.name_id)].add(d);
            else if (by_ == group_by::launch)
                groups_[launch_group_of(k)].add(d);
            else
                groups_[range_group_of(by_ == group_by::nvtx ? k.nvtx_range : k.nvtx_path)].add(d);
        }
    }
    void on_nvtx(std::span<const trace::nvtx_record> rs) override {
        if (by_ != group_by::nvtx && by_ != group_by::nvtx_path) return;
        // The ranges' own host durations: what `--by nvtx` shows for traces whose kernels carry
        // no range (format 1.0, or recorded without the launch callbacks).
        for (const auto& n : rs) {
            if (!n.timed()) {
                ++untimed;
                continue;
            }
            groups_[group_of(n.name_id)].add(n.end_ns - n.start_ns);
        }
    }

private:
    [[nodiscard]] bool by_nvtx() const noexcept {
        return by_ == group_by::nvtx || by_ == group_by::nvtx_path;
    }
    std::size_t global(const std::string& key, const trace::trace_string& s,
                       const std::string& shape, bool host_range = false) {
        auto [it, added] = index_.emplace(key, groups_.size());
        if (added) {
            groups_.emplace_back();
            groups_.back().row.name = s.demangled;
            groups_.back().row.mangled = by_nvtx() ? "" : s.mangled;
            groups_.back().row.shape = shape;
            groups_.back().host_range = host_range;
        }
        return it->second;
    }
    std::size_t group_of(std::uint32_t id) { // by name; NVTX: the range's host duration
        if (id >= by_id_.size()) by_id_.resize(id + 1, npos);
        if (by_id_[id] == npos) {
            const auto& s = reader_->string(id);
            by_id_[id] =
                by_nvtx() ? global("r\n" + s.mangled, s, "", true) : global(s.mangled, s, "");
        }
        return by_id_[id];
    }
    std::size_t range_group_of(std::uint32_t range) { // 1 + string id, 0: outside any range
        if (range >= by_range_.size()) by_range_.resize(range + 1, npos);
        if (by_range_[range] == npos) {
            static const trace::trace_string outside{"(no NVTX range)", "(no NVTX range)"};
            const auto& s = range == 0 ? outside : reader_->string(range - 1);
            by_range_[range] = global((range == 0 ? "o\n" : "k\n") + s.mangled, s, "");
        }
        return by_range_[range];
    }
    std::size_t launch_group_of(const trace::kernel_record& k) {
        const launch_key key{
            k.name_id,   k.grid.x,    k.grid.y,      k.grid.z,
            k.block.x,   k.block.y,   k.block.z,     k.cluster.x * 65536 + k.cluster.y,
            k.cluster.z, k.registers, k.static_smem, k.dynamic_smem};
        const auto it = by_launch_.find(key);
        if (it != by_launch_.end()) return it->second;
        std::string shape = fmt::format("grid {}x{}x{} block {}x{}x{}", k.grid.x, k.grid.y,
                                        k.grid.z, k.block.x, k.block.y, k.block.z);
        if (k.cluster.x)
            shape += fmt::format(" cluster {}x{}x{}", k.cluster.x, k.cluster.y, k.cluster.z);
        shape += fmt::format(" regs {} smem {}", k.registers, k.static_smem + k.dynamic_smem);
        const auto& s = reader_->string(k.name_id);
        const std::size_t g = global(s.mangled + '\n' + shape, s, shape);
        by_launch_.emplace(key, g);
        return g;
    }
    struct key_hash {
        std::size_t operator()(const launch_key& k) const noexcept {
            std::size_t h = 0;
            std::apply([&](auto... v) { ((h = h * 1000003u ^ v), ...); }, k);
            return h;
        }
    };
    static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();
    group_by by_;
    std::vector<group>& groups_;
    std::map<std::string, std::size_t>& index_;
    const trace::trace_reader* reader_ = nullptr;
    std::vector<std::size_t> by_id_;
    std::vector<std::size_t> by_range_;
    std::unordered_map<launch_key, std::size_t, key_hash> by_launch_;
};

} // namespace

aggregate_report aggregate(const std::vector<std::string>& traces, group_by by) {
    if (traces.empty()) throw error(error_kind::usage, "no trace given");
    aggregate_report report;
    report.by = by;
    std::vector<group> groups;
    std::map<std::string, std::size_t> index;
    aggregator agg(by, groups, index);
    for (const auto& path : traces) {
        trace::trace_reader reader(path);
        agg.begin(&reader);
        const auto st = reader.read(agg);
        agg.timeline.finish(report.timeline);
        report.traces.push_back({path, reader.environment(), st.counters, st.complete, st.damage});
    }
    report.untimed = agg.untimed;
    // By NVTX: kernel time per enclosing range when any kernel carries one; otherwise (older
    // traces) the ranges' own host durations.
    const bool nvtx = by == group_by::nvtx || by == group_by::nvtx_path;
    bool attributed = false;
    for (const auto& [key, i] : index)
        attributed = attributed || key.starts_with("k\n");
    report.nvtx_host_time = nvtx && !attributed;
    for (auto& g : groups) {
        if (nvtx && g.host_range != report.nvtx_host_time) continue;
        auto& s = g.row.stats;
        s.mean_ns = s.count ? static_cast<double>(s.total_ns) / static_cast<double>(s.count) : 0;
        s.p50_ns = g.sketch.quantile(0.5);
        s.p95_ns = g.sketch.quantile(0.95);
        s.min_ns = s.count ? g.min : 0;
        s.max_ns = g.max;
        report.total_ns += s.total_ns;
        report.rows.push_back(std::move(g.row));
    }
    const double denom = report.nvtx_host_time ? static_cast<double>(report.timeline.span_ns)
                                               : static_cast<double>(report.total_ns);
    for (auto& r : report.rows)
        r.share = denom > 0 ? static_cast<double>(r.stats.total_ns) / denom : 0;
    std::stable_sort(report.rows.begin(), report.rows.end(), [](const auto& a, const auto& b) {
        return a.stats.total_ns != b.stats.total_ns ? a.stats.total_ns > b.stats.total_ns
                                                    : a.name < b.name;
    });
    return report;
}

} // namespace ktune::analysis
