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
    throw error(error_kind::usage,
                "--by " + std::string(s) + ": unknown grouping; use kernel, launch or nvtx");
}

std::string_view to_string(group_by g) noexcept {
    switch (g) {
    case group_by::kernel:
        return "kernel";
    case group_by::launch:
        return "launch";
    case group_by::nvtx:
        return "nvtx";
    }
    return "kernel";
}

namespace {

struct group {
    group_row row;
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
            if (by_ == group_by::nvtx) continue;
            groups_[by_ == group_by::kernel ? group_of(k.name_id) : launch_group_of(k)].add(
                k.end_ns - k.start_ns);
        }
    }
    void on_nvtx(std::span<const trace::nvtx_record> rs) override {
        if (by_ != group_by::nvtx) return;
        for (const auto& n : rs) {
            if (!n.timed()) {
                ++untimed;
                continue;
            }
            groups_[group_of(n.name_id)].add(n.end_ns - n.start_ns);
        }
    }

private:
    std::size_t global(const std::string& key, const trace::trace_string& s,
                       const std::string& shape) {
        auto [it, added] = index_.emplace(key, groups_.size());
        if (added) {
            groups_.emplace_back();
            groups_.back().row.name = s.demangled;
            groups_.back().row.mangled = by_ == group_by::nvtx ? "" : s.mangled;
            groups_.back().row.shape = shape;
        }
        return it->second;
    }
    std::size_t group_of(std::uint32_t id) {
        if (id >= by_id_.size()) by_id_.resize(id + 1, npos);
        if (by_id_[id] == npos) {
            const auto& s = reader_->string(id);
            by_id_[id] = global(s.mangled, s, "");
        }
        return by_id_[id];
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
    for (auto& g : groups) {
        auto& s = g.row.stats;
        s.mean_ns = s.count ? static_cast<double>(s.total_ns) / static_cast<double>(s.count) : 0;
        s.p50_ns = g.sketch.quantile(0.5);
        s.p95_ns = g.sketch.quantile(0.95);
        s.min_ns = s.count ? g.min : 0;
        s.max_ns = g.max;
        report.total_ns += s.total_ns;
        report.rows.push_back(std::move(g.row));
    }
    const double denom = by == group_by::nvtx ? static_cast<double>(report.timeline.span_ns)
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
