#include "ktune/analysis/roofline.hpp"

#include "ktune/core/error.hpp"
#include "ktune/metrics/metric_set.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

namespace ktune::analysis {
namespace {

constexpr std::size_t idx(compute_kind k) {
    return static_cast<std::size_t>(k);
}

double value_or(const metrics::kernel_sample& s, std::string_view name, double fallback) {
    const auto it = s.values.find(std::string(name));
    return it == s.values.end() ? fallback : it->second;
}

// ncu's roofline FLOP count: add + mul + 2 x fma, per thread instruction.
double sass_flops(const metrics::kernel_sample& s, char p) {
    const auto op = [&](std::string_view o) {
        return value_or(s,
                        std::string(metrics::names::sass_prefix) + p + std::string(o) +
                            std::string(metrics::names::sass_suffix),
                        0);
    };
    return op("add") + op("mul") + 2 * op("fma");
}

std::string lever_for(bound_class c, bound_unit u, compute_kind k, const roofline_roofs& roofs,
                      double pct_of_attainable) {
    const bool tensor_is_faster = (k == compute_kind::fp32 || k == compute_kind::fp16) &&
                                  roofs.roof(compute_kind::tensor_16) > roofs.roof(k);
    const bool tensor_kind = k == compute_kind::tensor_16 || k == compute_kind::tensor_tf32 ||
                             k == compute_kind::tensor_fp8;
    if (c == bound_class::memory && u == bound_unit::l1 && tensor_kind)
        return "shared-memory bandwidth feeding the tensor cores: larger MMA tiles (more FLOPs "
               "per shared-memory byte), the A operand from registers";
    if (c == bound_class::memory && u == bound_unit::l1)
        return tensor_is_faster
                   ? "shared-memory reuse: register tiling (more outputs per thread per shared "
                     "load), 128-bit accesses without bank conflicts, or tensor cores (MMA "
                     "reads its tiles from shared memory far more efficiently)"
                   : "shared-memory reuse: register tiling (more outputs per thread per shared "
                     "load), 128-bit accesses without bank conflicts";
    if (c == bound_class::memory && u == bound_unit::l2)
        return "L2 traffic: larger tiles reused from shared memory or registers, coalesced "
               "accesses (fewer sectors per request); DRAM is not the limit";
    if (c == bound_class::compute && u == bound_unit::issue)
        return "instruction issue: fewer instructions per result (vector loads, less index "
               "math, unrolling)";
    switch (c) {
    case bound_class::launch:
        return "CUDA graphs or fusion: launch overhead, not the kernel, sets the time";
    case bound_class::latency:
        return "latency hiding: more parallel work per SM (grid, occupancy, ILP), fewer dependent "
               "loads; collect the stalls set";
    case bound_class::memory:
        return pct_of_attainable >= 80
                   ? "fusion: at its memory roof, only fewer DRAM bytes help (fuse with "
                     "neighbours, lower precision)"
                   : "coalescing and fusion: vectorised, coalesced accesses first, then fewer "
                     "DRAM bytes";
    case bound_class::compute:
        if (tensor_is_faster)
            return "tensor cores: move the math to MMA (TF32/BF16), its roof is far higher";
        if (k == compute_kind::fp64) return "algorithm or precision: FP64 pipe saturated";
        return "tile shape and pipelining: tile size, stages, warp specialisation";
    }
    return {};
}

} // namespace

std::string_view to_string(compute_kind k) noexcept {
    switch (k) {
    case compute_kind::fp64:
        return "FP64";
    case compute_kind::fp32:
        return "FP32";
    case compute_kind::fp16:
        return "FP16";
    case compute_kind::tensor_16:
        return "BF16/FP16 tensor";
    case compute_kind::tensor_tf32:
        return "TF32 tensor";
    case compute_kind::tensor_fp8:
        return "FP8 tensor";
    }
    return "?";
}

std::string_view to_string(bound_unit u) noexcept {
    switch (u) {
    case bound_unit::dram:
        return "DRAM";
    case bound_unit::l2:
        return "L2";
    case bound_unit::l1:
        return "L1/shared";
    case bound_unit::pipe:
        return "pipe";
    case bound_unit::issue:
        return "issue";
    }
    return "?";
}

std::string_view to_string(bound_class c) noexcept {
    switch (c) {
    case bound_class::memory:
        return "memory";
    case bound_class::compute:
        return "compute";
    case bound_class::latency:
        return "latency";
    case bound_class::launch:
        return "launch";
    }
    return "?";
}

roofline_roofs roofs_from_spec(const gpu_peaks& peaks) {
    roofline_roofs r;
    r.gpu = std::string(peaks.name);
    r.source = "spec: " + std::string(peaks.source);
    r.dram_bytes_per_s = peaks.dram_gbs * 1e9;
    r.flops_per_s[idx(compute_kind::fp64)] = peaks.fp64_tflops * 1e12;
    r.flops_per_s[idx(compute_kind::fp32)] = peaks.fp32_tflops * 1e12;
    // HFMA2 does two FMAs per instruction, but ncu's count (and ours) is per instruction, so the
    // FP16 roof in these units is the FP32 one.
    r.flops_per_s[idx(compute_kind::fp16)] = peaks.fp32_tflops * 1e12;
    r.flops_per_s[idx(compute_kind::tensor_16)] = peaks.fp16_tensor_tflops * 1e12;
    r.flops_per_s[idx(compute_kind::tensor_tf32)] = peaks.tf32_tensor_tflops * 1e12;
    r.flops_per_s[idx(compute_kind::tensor_fp8)] = peaks.fp8_tensor_tflops * 1e12;
    return r;
}

roofline_roofs with_measured(roofline_roofs r, const metrics::measured_peaks& m) {
    bool any = false;
    if (m.dram_gbs > 0) r.dram_bytes_per_s = m.dram_gbs * 1e9, any = true;
    if (m.fp32_tflops > 0) {
        r.flops_per_s[idx(compute_kind::fp32)] = m.fp32_tflops * 1e12;
        r.flops_per_s[idx(compute_kind::fp16)] = m.fp32_tflops * 1e12;
        any = true;
    }
    if (m.bf16_tensor_tflops > 0)
        r.flops_per_s[idx(compute_kind::tensor_16)] = m.bf16_tensor_tflops * 1e12, any = true;
    if (any) r.source = "measured (ktune device --measure); others " + r.source;
    return r;
}

kernel_work work_from_sample(const metrics::kernel_sample& s) {
    kernel_work w;
    w.name = s.name;
    const auto require = [&](std::string_view metric) {
        const auto it = s.values.find(std::string(metric));
        if (it == s.values.end())
            throw error(error_kind::input,
                        fmt::format("kernel '{}' has no '{}': profile it with --metrics roofline",
                                    s.name, metric));
        return it->second;
    };
    w.duration_ns = require(metrics::names::duration);
    if (s.values.contains("dram__bytes.sum"))
        w.dram_bytes = s.values.at("dram__bytes.sum");
    else
        w.dram_bytes = require(metrics::names::dram_read) + require(metrics::names::dram_write);
    w.l2_bytes = value_or(s, metrics::names::l2_bytes, 0);
    w.flops[idx(compute_kind::fp64)] = sass_flops(s, 'd');
    w.flops[idx(compute_kind::fp32)] = sass_flops(s, 'f');
    w.flops[idx(compute_kind::fp16)] = sass_flops(s, 'h');
    // Tensor FLOPs per roof, from whichever counters the set carried: the aggregate
    // `…tensor_src_<p>` counts every instruction of precision p; the per-instruction
    // `…tensor_op_<inst>_src_<p>` ones are disjoint parts of it. Both may be present (the
    // `measure` set), so per roof the larger of the aggregate and the sum of parts is the work.
    std::array<double, compute_kind_count> aggregate{}, parts{};
    const auto roof_of = [](std::string_view src) -> std::optional<compute_kind> {
        // ops_path counts are FLOPs already (2·M·N·K on a GEMM); int8 and FP64 MMA have no roof.
        if (src.starts_with("bf16") || src.starts_with("fp16")) return compute_kind::tensor_16;
        if (src.starts_with("tf32")) return compute_kind::tensor_tf32;
        if (src.starts_with("fp8") || src.starts_with("fp4_fp6_fp8"))
            return compute_kind::tensor_fp8;
        return std::nullopt;
    };
    for (const auto& [name, v] : s.values) {
        const std::string_view n = name;
        if (n.starts_with(metrics::names::tensor_prefix)) {
            if (auto k = roof_of(n.substr(metrics::names::tensor_prefix.size())))
                aggregate[idx(*k)] += v;
        } else if (n.starts_with(metrics::names::tensor_op_prefix)) {
            const auto src = n.find("_src_");
            if (src == std::string_view::npos) continue;
            if (auto k = roof_of(n.substr(src + 5))) parts[idx(*k)] += v;
        }
    }
    for (auto k : {compute_kind::tensor_16, compute_kind::tensor_tf32, compute_kind::tensor_fp8})
        w.flops[idx(k)] = std::max(aggregate[idx(k)], parts[idx(k)]);
    w.l2_pct = value_or(s, metrics::names::l2_pct, -1);
    for (auto n : {metrics::names::l1_bank_reads_pct, metrics::names::l1_bank_writes_pct,
                   metrics::names::l1_lsu_pct})
        w.l1_pct = std::max(w.l1_pct, value_or(s, n, -1));
    w.issue_pct = value_or(s, metrics::names::issue_pct, -1);
    w.launches = s.launches;
    w.total_time_ns = s.total_time_ns;
    w.mean_gap_ns = s.mean_gap_ns;
    w.launch_index = s.launch_index;
    return w;
}

std::vector<roofline_point> classify(std::span<const kernel_work> works,
                                     const roofline_roofs& roofs, const roofline_thresholds& t) {
    if (roofs.dram_bytes_per_s <= 0)
        throw error(error_kind::input, "roofline: the GPU's DRAM bandwidth is unknown; pass --gpu");
    std::vector<roofline_point> out;
    double total = 0;
    for (const auto& w : works) {
        if (w.duration_ns <= 0)
            throw error(
                error_kind::input,
                fmt::format("kernel '{}': duration {} ns is not positive", w.name, w.duration_ns));
        roofline_point p;
        p.name = w.name;
        p.launch_index = w.launch_index;
        p.time_ns = w.total_time_ns > 0 ? w.total_time_ns : w.duration_ns * double(w.launches);
        total += p.time_ns;
        const double secs = w.duration_ns * 1e-9;
        double flops = 0, busiest = -1;
        for (std::size_t k = 0; k < compute_kind_count; ++k) {
            flops += w.flops[k];
            const double roof = roofs.flops_per_s[k];
            if (roof <= 0 || w.flops[k] <= 0) continue;
            const double share = w.flops[k] / roof / secs; // fraction of time on that pipe
            p.compute_pct += 100 * share;
            if (share > busiest) busiest = share, p.kind = static_cast<compute_kind>(k);
        }
        p.flops_per_s = flops / secs;
        p.bytes_per_s = w.dram_bytes / secs;
        p.memory_pct = 100 * p.bytes_per_s / roofs.dram_bytes_per_s;
        p.intensity = w.dram_bytes > 0 ? flops / w.dram_bytes : INFINITY;
        p.roof_flops_per_s = roofs.roof(p.kind);
        p.ridge = p.roof_flops_per_s / roofs.dram_bytes_per_s;
        p.attainable_flops_per_s =
            std::min(p.roof_flops_per_s, p.intensity * roofs.dram_bytes_per_s);
        // With no FLOPs the attainable point is the memory roof itself.
        p.pct_of_attainable = flops > 0 && p.attainable_flops_per_s > 0
                                  ? 100 * p.flops_per_s / p.attainable_flops_per_s
                                  : p.memory_pct;

        // Hierarchical: the busiest memory level (DRAM from bytes; L2 and L1/shared from their
        // throughputs where the set carried them) against the busier of the math pipes and
        // instruction issue. With DRAM alone this is the plain roofline verdict.
        p.l2_pct = w.l2_pct;
        p.l1_pct = w.l1_pct;
        p.issue_pct = w.issue_pct;
        double mem = p.memory_pct, comp = p.compute_pct;
        bound_unit mem_unit = bound_unit::dram, comp_unit = bound_unit::pipe;
        if (w.l2_pct > mem) mem = w.l2_pct, mem_unit = bound_unit::l2;
        if (w.l1_pct > mem) mem = w.l1_pct, mem_unit = bound_unit::l1;
        if (w.issue_pct > comp) comp = w.issue_pct, comp_unit = bound_unit::issue;
        p.unit = mem >= comp ? mem_unit : comp_unit;
        const auto levels = [&] {
            std::string s = fmt::format("DRAM {:.0f} %", p.memory_pct);
            if (w.l2_pct >= 0) s += fmt::format(", L2 {:.0f} %", w.l2_pct);
            if (w.l1_pct >= 0) s += fmt::format(", L1/shared {:.0f} %", w.l1_pct);
            s += fmt::format(", {} pipe {:.0f} %", to_string(p.kind), p.compute_pct);
            if (w.issue_pct >= 0) s += fmt::format(", issue {:.0f} %", w.issue_pct);
            return s;
        };

        const double mean_ns = p.time_ns / double(w.launches);
        if (mean_ns < t.launch_max_kernel_ns && w.mean_gap_ns >= 0 &&
            w.mean_gap_ns >= t.launch_min_gap_ratio * mean_ns) {
            p.cls = bound_class::launch;
            p.why = fmt::format("{:.1f} us kernels with {:.1f} us GPU idle before each",
                                mean_ns / 1e3, w.mean_gap_ns / 1e3);
        } else if (std::max(mem, comp) < t.latency_pct) {
            p.cls = bound_class::latency;
            p.why = fmt::format("{}: all under {:.0f} % of peak", levels(), t.latency_pct);
        } else if (mem >= comp && mem_unit == bound_unit::dram) {
            p.cls = bound_class::memory;
            p.why = fmt::format("{:.2f} FLOP/B left of the {:.1f} FLOP/B ridge; {}", p.intensity,
                                p.ridge, levels());
        } else if (mem >= comp) {
            p.cls = bound_class::memory;
            p.why = fmt::format("{} busiest ({}); {:.2f} FLOP/B per DRAM byte vs ridge {:.1f}",
                                to_string(mem_unit), levels(), p.intensity, p.ridge);
        } else {
            p.cls = bound_class::compute;
            p.why =
                comp_unit == bound_unit::pipe
                    ? fmt::format("{} pipe at {:.0f} % of its roof; {:.1f} FLOP/B vs ridge "
                                  "{:.1f}; {}",
                                  to_string(p.kind), p.compute_pct, p.intensity, p.ridge, levels())
                    : fmt::format("instruction issue busiest ({})", levels());
        }
        p.lever = lever_for(p.cls, p.unit, p.kind, roofs, p.pct_of_attainable);
        out.push_back(std::move(p));
    }
    for (auto& p : out)
        p.time_share = total > 0 ? p.time_ns / total : 0;
    return out;
}

roofline_analysis analyse_roofline(const metrics::kernel_metrics_doc& doc, std::string_view gpu,
                                   const roofline_thresholds& thresholds) {
    const std::string name = gpu == "auto" ? doc.gpu : std::string(gpu);
    if (name.empty())
        throw error(error_kind::usage,
                    "the metrics name no GPU: pass --gpu with a name from `ktune device --list`");
    const auto peaks = find_gpu_peaks(name);
    if (!peaks)
        throw error(error_kind::not_found,
                    fmt::format("no peaks known for GPU '{}': pass --gpu with a name from `ktune "
                                "device --list`",
                                name));
    roofline_analysis a;
    a.roofs = roofs_from_spec(*peaks);
    if (doc.measured) a.roofs = with_measured(std::move(a.roofs), *doc.measured);
    std::vector<kernel_work> works;
    works.reserve(doc.kernels.size());
    std::optional<error> first;
    for (const auto& k : doc.kernels) {
        try {
            works.push_back(work_from_sample(k));
        } catch (const error& e) {
            if (e.kind() != error_kind::input) throw;
            // Launches mode: CUPTI may call a pass sequence complete before every pass ran
            // (docs/perf/metrics.md#llama-layer); the metrics of the missing passes are absent.
            const error why =
                doc.replay == "launches" && k.pass_launches < doc.passes
                    ? error(error_kind::input,
                            fmt::format("{}: its metrics came from {} of the set's {} passes "
                                        "(CUPTI ended the pass sequence early); profile it again "
                                        "or with --replay kernel",
                                        k.name, k.pass_launches, doc.passes))
                    : e;
            if (!first) first = why;
            a.unevaluated.push_back(why.what());
        }
    }
    // Not one kernel usable: the document is of another set; say so rather than print nothing.
    if (works.empty() && first) throw *first;
    a.points = classify(works, a.roofs, thresholds);
    std::ranges::stable_sort(a.points, [](const roofline_point& x, const roofline_point& y) {
        return x.time_share > y.time_share;
    });
    return a;
}

} // namespace ktune::analysis
