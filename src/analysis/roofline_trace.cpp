// The .ktrace side of the roofline: launch counts, GPU time and idle gaps from the profile's
// timeline, joined to the sampled metrics by kernel name.
#include "ktune/analysis/aggregate.hpp"
#include "ktune/analysis/roofline.hpp"
#include "ktune/core/error.hpp"
#include "ktune/metrics/metric_set.hpp"
#include "ktune/trace/trace_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

namespace ktune::analysis {

void join_trace_timeline(metrics::kernel_metrics_doc& doc, const std::vector<std::string>& traces) {
    if (traces.empty()) return;
    const auto report = aggregate(traces, group_by::kernel);
    const double mean_gap = report.timeline.gaps > 0
                                ? double(report.timeline.idle_ns) / double(report.timeline.gaps)
                                : -1;
    for (auto& k : doc.kernels) {
        for (const auto& row : report.rows) {
            if (row.name != k.name && row.mangled != k.name) continue;
            k.launches = row.stats.count > 0 ? row.stats.count : 1;
            k.total_time_ns = double(row.stats.total_ns);
            k.mean_gap_ns = mean_gap;
            break;
        }
    }
    if (doc.gpu.empty())
        for (const auto& t : report.traces)
            if (!t.environment.gpus.empty()) {
                doc.gpu = t.environment.gpus.front().name;
                break;
            }
}

namespace {

// A kernel and its launch shape, as `--replay launches` tells launches apart.
std::string shape_key(const trace::kernel_record& k) {
    return fmt::format("{}/{},{},{}/{},{},{}/{}", k.name_id, k.grid.x, k.grid.y, k.grid.z,
                       k.block.x, k.block.y, k.block.z, k.dynamic_smem);
}

struct correlation_ids final : trace::trace_visitor {
    struct timed {
        std::uint32_t name_id = 0;
        std::uint64_t duration_ns = 0;
        std::string shape;
    };
    std::unordered_set<std::uint32_t> ids;
    /// Timed records by correlation id. Kernels launched inside the launch call (ktune's L2
    /// sweep, CUPTI's WaitNs at a range's pop) share its id, hence the name beside each.
    std::unordered_map<std::uint32_t, std::vector<timed>> durations;
    /// Launch times per kernel and launch shape.
    std::unordered_map<std::string, std::vector<std::uint64_t>> spread;
    void on_kernels(std::span<const trace::kernel_record> ks) override {
        for (const auto& k : ks) {
            ids.insert(k.correlation);
            const auto d = k.duration_ns();
            if (d == 0) continue;
            auto shape = shape_key(k);
            spread[shape].push_back(d);
            durations[k.correlation].push_back({k.name_id, d, std::move(shape)});
        }
    }
};

// A user range spans the launch plus the profiler's own start/stop of the range on the GPU
// (8-30 us more than a 10-40 us kernel on the H200 probe), so its gpu__time_duration and its
// `*.pct_of_peak_sustained_elapsed` throughputs (work over the range's elapsed cycles) are
// diluted. The kernel's own duration is in the trace: the record of the profiled launch itself
// (same correlation id), else the mean of the kernel's timed launches. The throughputs are
// rescaled by range / kernel time, capped at 100 % (left out beyond 4x); the range time stays
// as `ktune__range_duration_ns`.
// Passes merged from several launches are one kernel's only if those launches did the same
// work. `--replay launches` merges launches of one name and launch shape, but a persistent
// kernel (cuBLAS's nvjet GEMMs) runs every problem size on the same grid: FLOPs counted on a
// large GEMM and time from a small one gave 254 % of the tensor roof on an H200 training loop.
// Launches of one shape whose times differ by more than 25 % (10th to 90th percentile) did
// different work. The profiled launches themselves run longer (a range around each, and the
// warm-up launch before them loads the module), so the slowest pass_launches + 1 launches are
// left out of the comparison; fewer than 4 left (a kernel launched only for its passes) is not
// judged. Returns "p10..p90 us" when mixed, else empty.
std::string mixed_work(const metrics::kernel_sample& k, const correlation_ids& records,
                       const trace::trace_reader& reader) {
    // A sample keyed by work ran every pass on launches with the same parameter bytes: same
    // problem, whatever the other launches of its grid do (docs/perf/metrics.md#work-keys).
    if (k.pass_launches <= 1 || !k.work.empty()) return {};
    const auto it = records.durations.find(static_cast<std::uint32_t>(k.correlation_id));
    if (k.correlation_id == 0 || it == records.durations.end()) return {};
    for (const auto& r : it->second) {
        if (reader.string(r.name_id).mangled != k.name) continue;
        const auto s = records.spread.find(r.shape);
        if (s == records.spread.end()) return {};
        auto t = s->second;
        std::sort(t.begin(), t.end());
        const std::size_t drop = static_cast<std::size_t>(k.pass_launches) + 1;
        if (t.size() < drop + 4) return {};
        t.resize(t.size() - drop);
        const double lo = double(t[t.size() / 10]), hi = double(t[t.size() * 9 / 10]);
        if (hi <= 1.25 * lo) return {};
        return fmt::format("{:.1f}..{:.1f} us", lo / 1e3, hi / 1e3);
    }
    return {};
}

void kernel_time_from_trace(metrics::kernel_sample& k, const correlation_ids& records,
                            const trace::trace_reader& reader) {
    double kernel_ns = 0;
    if (const auto it = records.durations.find(static_cast<std::uint32_t>(k.correlation_id));
        k.correlation_id != 0 && it != records.durations.end())
        for (const auto& r : it->second)
            if (reader.string(r.name_id).mangled == k.name) kernel_ns = double(r.duration_ns);
    if (kernel_ns <= 0 && k.total_time_ns > 0 && k.launches > 0)
        kernel_ns = k.total_time_ns / double(k.launches);
    if (kernel_ns <= 0) return;
    const std::string duration(metrics::names::duration);
    const auto range = k.values.find(duration);
    if (range != k.values.end() && range->second > kernel_ns) {
        // Up to 4x (a short kernel's range with the profiler's own commands) the work is the
        // kernel's and only the denominator is wider; beyond that something else filled the
        // range (host work between push and launch) and the throughputs are left out.
        const double scale = range->second / kernel_ns;
        for (auto it = k.values.begin(); it != k.values.end();) {
            if (!it->first.ends_with("pct_of_peak_sustained_elapsed")) {
                ++it;
            } else if (scale <= 4) {
                it->second = std::min(100.0, it->second * scale);
                ++it;
            } else {
                it = k.values.erase(it);
            }
        }
    }
    if (range != k.values.end()) k.values["ktune__range_duration_ns"] = range->second;
    k.values[duration] = kernel_ns;
}

// Samples of one kernel told apart by work share the kernel's launches: the timeline joined the
// name's total to each of them. The trace does not say which launch did which work, so each
// launch of the samples' name and shape goes to the sample whose own launch time is nearest (a
// GEMM of another size takes another time); each sample then counts its launches and their time.
void split_time_by_work(std::vector<metrics::kernel_sample>& kernels,
                        const correlation_ids& records, const trace::trace_reader& reader) {
    struct owner {
        metrics::kernel_sample* sample;
        double own_ns;
    };
    std::unordered_map<std::string, std::vector<owner>> by_shape;
    for (auto& k : kernels) {
        if (k.work.empty() || k.correlation_id == 0) continue;
        const auto it = records.durations.find(static_cast<std::uint32_t>(k.correlation_id));
        if (it == records.durations.end()) continue;
        for (const auto& r : it->second)
            if (reader.string(r.name_id).mangled == k.name) {
                by_shape[r.shape].push_back({&k, double(r.duration_ns)});
                break;
            }
    }
    for (auto& [shape, owners] : by_shape) {
        const auto s = records.spread.find(shape);
        if (owners.size() < 2 || s == records.spread.end()) continue;
        std::vector<double> total(owners.size(), 0);
        std::vector<std::uint64_t> count(owners.size(), 0);
        for (const auto d : s->second) {
            std::size_t best = 0;
            for (std::size_t i = 1; i < owners.size(); ++i)
                if (std::abs(owners[i].own_ns - double(d)) <
                    std::abs(owners[best].own_ns - double(d)))
                    best = i;
            total[best] += double(d);
            ++count[best];
        }
        // Equal work on other buffers (Q, K and V projections) takes equal time: such samples
        // share their launches evenly.
        for (std::size_t i = 0; i < owners.size(); ++i) {
            std::size_t same = 0;
            double t = 0;
            std::uint64_t n = 0;
            for (std::size_t j = 0; j < owners.size(); ++j)
                if (std::abs(owners[j].own_ns - owners[i].own_ns) <= 0.05 * owners[i].own_ns) {
                    ++same;
                    t += total[j];
                    n += count[j];
                }
            owners[i].sample->total_time_ns = t / double(same);
            owners[i].sample->launches = std::max<std::uint64_t>(1, n / same);
        }
    }
}

} // namespace

trace_metrics metrics_from_trace(const std::string& path) {
    const std::string json = trace::read_metrics_chunk(path);
    if (json.empty())
        throw error(error_kind::input,
                    path +
                        ": no metrics in this trace; record them with `ktune profile --metrics "
                        "roofline -o " +
                        path + " -- <cmd>`");
    trace_metrics out{metrics::parse_kernel_metrics(json, path + " (metrics chunk)"), 0, {}};
    join_trace_timeline(out.doc, {path});
    // The join by launch: CUPTI's correlation id of the sampled launch is the id of its kernel
    // record in the activity trace.
    trace::trace_reader reader(path);
    correlation_ids seen;
    (void)reader.read(seen);
    split_time_by_work(out.doc.kernels, seen, reader);
    std::vector<metrics::kernel_sample> kept;
    for (auto& k : out.doc.kernels) {
        if (const auto mixed = mixed_work(k, seen, reader); !mixed.empty()) {
            out.mixed_work.push_back(trace::demangle(k.name) + ": " + mixed);
            continue;
        }
        if (k.correlation_id != 0 &&
            seen.ids.contains(static_cast<std::uint32_t>(k.correlation_id)))
            ++out.joined_by_correlation;
        if (out.doc.range == "user") kernel_time_from_trace(k, seen, reader);
        k.name = trace::demangle(k.name);
        // Samples of one kernel told apart by work: their names say which work (the hash's
        // last 4 hex digits), so each is its own row and point.
        if (!k.work.empty() && k.work.size() >= 4)
            k.name += " [w:" + k.work.substr(k.work.size() - 4) + "]";
        kept.push_back(std::move(k));
    }
    out.doc.kernels = std::move(kept);
    return out;
}

} // namespace ktune::analysis
