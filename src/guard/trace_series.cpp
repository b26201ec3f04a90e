// Trace adapter of `ktune diff`: a .ktrace becomes per-kernel launch-duration distributions,
// keyed by demangled name and launch shape, weighted by their share of GPU time.
#include "guard/trace_series.hpp"

#include "ktune/core/device.hpp"
#include "ktune/core/error.hpp"
#include "ktune/trace/trace_file.hpp"

#include <fmt/format.h>

#include <map>
#include <tuple>

namespace ktune::guard::detail {
namespace {

struct launch_key {
    std::uint32_t name_id;
    trace::dim3_u grid, block;
    bool operator<(const launch_key& o) const {
        return std::tie(name_id, grid.x, grid.y, grid.z, block.x, block.y, block.z) <
               std::tie(o.name_id, o.grid.x, o.grid.y, o.grid.z, o.block.x, o.block.y, o.block.z);
    }
};

class collect : public trace::trace_visitor {
public:
    std::map<launch_key, std::vector<double>> durations;
    double total_ns = 0;
    void on_kernels(std::span<const trace::kernel_record> ks) override {
        for (const auto& k : ks) {
            if (!k.timed()) continue; // an untimed launch is counted by the trace, not 0 ns
            const double d = static_cast<double>(k.duration_ns());
            durations[{k.name_id, k.grid, k.block}].push_back(d);
            total_ns += d;
        }
    }
};

} // namespace

series_set read_trace_series(const std::string& path, bool allow_incomplete) {
    trace::trace_reader reader(path);
    collect c;
    const trace::read_status st = reader.read(c);
    if (!st.complete && !allow_incomplete)
        throw error(error_kind::input,
                    st.damage + "; pass --allow-incomplete to compare what survived");
    series_set out;
    out.source = path;
    const auto& env = reader.environment();
    out.env.host = env.host;
    out.env.driver = env.driver_version;
    out.env.toolkit = env.toolkit_version ? format_cuda_version(env.toolkit_version) : "";
    out.env.runtime = env.driver_api_version ? format_cuda_version(env.driver_api_version) : "";
    if (!env.gpus.empty()) {
        const auto& g = env.gpus.front();
        out.env.gpu = g.name;
        out.env.gpu_uuid = g.uuid;
        out.env.arch = fmt::format("sm_{}{}", g.cc_major, g.cc_minor);
        out.env.sm_clock_mhz = g.sm_mhz;
        out.env.memory_clock_mhz = g.memory_mhz;
        out.env.throttle_reasons = g.throttle_reasons;
    }
    if (!st.complete) out.notes.push_back(path + ": trace is incomplete (" + st.damage + ")");
    if (st.counters.dropped())
        out.notes.push_back(fmt::format("{}: {} records were dropped while recording", path,
                                        st.counters.dropped()));
    for (auto& [k, d] : c.durations) {
        series s;
        s.name = reader.string(k.name_id).demangled;
        s.shape = fmt::format("grid({},{},{}) block({},{},{})", k.grid.x, k.grid.y, k.grid.z,
                              k.block.x, k.block.y, k.block.z);
        s.unit = "ns";
        s.launches_per_run = static_cast<double>(d.size());
        double sum = 0;
        for (double v : d)
            sum += v;
        s.gpu_time_share = c.total_ns > 0 ? sum / c.total_ns : 0;
        s.samples = std::move(d);
        out.items.push_back(std::move(s));
    }
    return out;
}

} // namespace ktune::guard::detail
