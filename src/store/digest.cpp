// digest_trace: one streaming pass turns a trace's kernel records into per (kernel, launch
// configuration) aggregates. Memory is bounded by the number of groups, never the records: a
// 10 M-record trace is an aggregation problem, not 10 M inserts (docs/perf/store.md).
#include "core/fnv1a.hpp"
#include "ktune/analysis/roofline.hpp"
#include "ktune/core/error.hpp"
#include "ktune/store/ingest.hpp"
#include "ktune/trace/trace_file.hpp"
#include "store/sha256.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <unordered_map>

namespace ktune::store {
namespace {

struct launch_key {
    std::uint32_t name, gx, gy, gz, bx, by, bz, cx, cy, cz, regs, smem;
    bool operator==(const launch_key&) const = default;
};

struct key_hash {
    std::size_t operator()(const launch_key& k) const noexcept {
        const auto words = {k.name, k.gx, k.gy, k.gz, k.bx,   k.by,
                            k.bz,   k.cx, k.cy, k.cz, k.regs, k.smem};
        const std::uint64_t h = ktune::detail::fnv1a_bytes(
            ktune::detail::fnv1a_basis, std::data(words), words.size() * sizeof *std::data(words));
        return static_cast<std::size_t>(h ^ (h >> 29));
    }
};

struct group {
    launch_key key;
    kernel_aggregate agg;
};

class aggregator final : public trace::trace_visitor {
public:
    void on_kernels(std::span<const trace::kernel_record> ks) override {
        for (const auto& k : ks) {
            if (!k.timed()) continue;
            const launch_key key{k.name_id,   k.grid.x,    k.grid.y,
                                 k.grid.z,    k.block.x,   k.block.y,
                                 k.block.z,   k.cluster.x, k.cluster.y,
                                 k.cluster.z, k.registers, k.static_smem + k.dynamic_smem};
            auto [it, fresh] = index_.try_emplace(key, groups_.size());
            if (fresh) groups_.push_back({key, {}});
            auto& a = groups_[it->second].agg;
            const auto d = k.duration_ns();
            if (a.count == 0 || d < a.min_ns) a.min_ns = d;
            if (d > a.max_ns) a.max_ns = d;
            ++a.count;
            a.total_ns += d;
            a.sketch.add(d);
            a.reservoir.add(d);
        }
    }
    std::vector<group>& groups() { return groups_; }

private:
    std::unordered_map<launch_key, std::size_t, key_hash> index_;
    std::vector<group> groups_;
};

std::string launch_text(const launch_key& k) {
    std::string s = fmt::format("grid {}x{}x{} block {}x{}x{}", k.gx, k.gy, k.gz, k.bx, k.by, k.bz);
    if (k.cx != 0) s += fmt::format(" cluster {}x{}x{}", k.cx, k.cy, k.cz);
    return s + fmt::format(" regs {} smem {}", k.regs, k.smem);
}

std::string version_text(int v) { // 13000 -> "13.0"
    return v > 0 ? fmt::format("{}.{}", v / 1000, (v % 1000) / 10) : std::string();
}

std::string join(const std::vector<std::string>& words) {
    std::string out;
    for (const auto& w : words)
        out += (out.empty() ? "" : " ") + w;
    return out;
}

void add_verdicts(run_digest& d, const trace::trace_reader& reader, const std::string& path,
                  std::string* note) {
    if (trace::read_metrics_chunk(path).empty()) return;
    try {
        const auto tm = analysis::metrics_from_trace(path);
        const auto roof = analysis::analyse_roofline(tm.doc);
        std::unordered_map<std::string, std::string> mangled_of;
        for (const auto& s : reader.strings())
            mangled_of.emplace(s.demangled, s.mangled);
        for (const auto& p : roof.points) {
            kernel_verdict v;
            v.demangled = p.name;
            const auto it = mangled_of.find(p.name);
            v.mangled = it != mangled_of.end() ? it->second : p.name;
            v.bound = std::string(analysis::to_string(p.cls));
            v.unit = std::string(analysis::to_string(p.unit));
            v.pct_of_roof = p.pct_of_attainable;
            v.intensity = p.intensity;
            v.lever = p.lever;
            d.verdicts.push_back(std::move(v));
        }
    } catch (const error& e) {
        // A metrics chunk the roofline cannot place (e.g. a GPU the spec table lacks) costs the
        // verdicts, never the run.
        if (note) *note = std::string("metrics not classified: ") + e.what();
    }
}

} // namespace

run_digest digest_trace(const std::string& path, const ingest_options& options, std::string* note) {
    run_digest d;
    trace::trace_reader reader(path);
    aggregator agg;
    const auto status = reader.read(agg);
    const auto& env = reader.environment();
    auto& r = d.run;
    r.id = detail::sha256_file(path);
    r.build = options.build;
    r.host = env.host;
    if (!env.gpus.empty()) r.gpu = env.gpus.front().name;
    r.driver =
        !env.driver_version.empty() ? env.driver_version : version_text(env.driver_api_version);
    r.toolkit = version_text(env.toolkit_version);
    r.command = join(env.command_line);
    r.sampling = options.sampling.empty() ? "all" : options.sampling;
    r.start_unix_ns = env.start_unix_ns;
    r.trace_bytes = std::filesystem::file_size(path);
    r.complete = status.complete;
    if (!status.complete && note) *note = "trace damaged: " + status.damage;
    d.kernels.reserve(agg.groups().size());
    for (auto& g : agg.groups()) {
        const auto& s = reader.string(g.key.name);
        g.agg.mangled = s.mangled;
        g.agg.demangled = s.demangled;
        g.agg.launch = launch_text(g.key);
        r.kernels += g.agg.count;
        r.total_ns += g.agg.total_ns;
        d.kernels.push_back(std::move(g.agg));
    }
    add_verdicts(d, reader, path, note);
    return d;
}

} // namespace ktune::store
