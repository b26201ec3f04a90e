#pragma once
// The roofline verdict of each profiled kernel: arithmetic intensity, ridge point, achieved vs
// roof, % of peak, a class (memory, compute, latency, launch) and the lever that fits it. Pure
// CPU code over metric values: the roofs come from the spec table or measured peaks.
//
//   auto roofs  = ktune::analysis::roofs_from_spec(*ktune::find_gpu_peaks("H200"));
//   auto points = ktune::analysis::classify(works, roofs);
//   for (auto& p : points) std::puts(p.lever.c_str());

#include "ktune/core/gpu_peaks.hpp"
#include "ktune/metrics/kernel_metrics.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::analysis {

/// The kinds of math with a roof of their own. SASS FP16 is counted as ncu counts it (per
/// instruction, fma = 2), so its roof is the FP32 one; bf16 and fp16 tensor work share a roof.
enum class compute_kind : std::uint8_t { fp64, fp32, fp16, tensor_16, tensor_tf32, tensor_fp8 };
inline constexpr std::size_t compute_kind_count = 6;
/// "FP64", "FP32", "FP16", "BF16/FP16 tensor", "TF32 tensor", "FP8 tensor".
std::string_view to_string(compute_kind k) noexcept;

/// The roofs of one GPU; 0 = unknown (no ceiling drawn, no class against it).
struct roofline_roofs {
    std::string gpu;
    std::string source; ///< "spec: <datasheet>" or "measured"
    double dram_bytes_per_s = 0;
    std::array<double, compute_kind_count> flops_per_s{};
    [[nodiscard]] double roof(compute_kind k) const {
        return flops_per_s[static_cast<std::size_t>(k)];
    }
    bool operator==(const roofline_roofs&) const = default;
};

roofline_roofs roofs_from_spec(const gpu_peaks& peaks);
/// The spec roofs with every measured peak (> 0) in place of its datasheet value.
roofline_roofs with_measured(roofline_roofs roofs, const metrics::measured_peaks& measured);

/// What a kernel did, from its metrics.
struct kernel_work {
    std::string name;
    double duration_ns = 0; ///< one profiled launch
    double dram_bytes = 0;
    double l2_bytes = 0;
    std::array<double, compute_kind_count> flops{};
    std::uint64_t launches = 1;
    double total_time_ns = 0;       ///< 0: duration_ns x launches
    double mean_gap_ns = -1;        ///< < 0 unknown
    std::uint64_t launch_index = 0; ///< the profiled launch (kernel_sample::launch_index)
    /// Throughputs beside the DRAM roofline, % of peak; < 0 = not measured (metric_set.hpp
    /// `names::l2_pct` …): L2 slices, L1/shared memory (busiest of data-bank reads, writes and
    /// the LSU data pipe), instruction issue.
    double l2_pct = -1;
    double l1_pct = -1;
    double issue_pct = -1;
    bool operator==(const kernel_work&) const = default;
};

/// Reads the roofline set's metric names (metric_set.hpp `names`). Throws error_kind::input
/// naming the kernel and the missing metric when duration or DRAM bytes are absent.
kernel_work work_from_sample(const metrics::kernel_sample& sample);

enum class bound_class : std::uint8_t { memory, compute, latency, launch };
std::string_view to_string(bound_class c) noexcept;

/// The unit whose throughput is highest, which names what binds a memory- or compute-bound
/// kernel: a level of the memory hierarchy, the busiest math pipe, or instruction issue.
enum class bound_unit : std::uint8_t { dram, l2, l1, pipe, issue };
/// "DRAM", "L2", "L1/shared", "pipe", "issue".
std::string_view to_string(bound_unit u) noexcept;

struct roofline_point {
    std::string name;
    double time_ns = 0;    ///< GPU time of all its launches
    double time_share = 0; ///< of all kernels classified together, 0..1
    double intensity = 0;  ///< FLOP per DRAM byte
    double flops_per_s = 0;
    double bytes_per_s = 0;
    compute_kind kind = compute_kind::fp32; ///< the math that keeps its pipe busiest
    double roof_flops_per_s = 0;            ///< roof of `kind`
    double ridge = 0;                       ///< FLOP/byte where `kind`'s roof meets DRAM's
    double attainable_flops_per_s = 0;      ///< min(roof, intensity x DRAM bandwidth)
    double pct_of_attainable = 0;           ///< achieved / attainable, %
    double memory_pct = 0;                  ///< DRAM bandwidth used, % of peak
    double compute_pct = 0;                 ///< busiest-pipe time share, % of the roofs
    double l2_pct = -1;    ///< L2 throughput, % of peak; < 0 not measured (kernel_work)
    double l1_pct = -1;    ///< L1/shared-memory throughput, % of peak; < 0 not measured
    double issue_pct = -1; ///< instruction issue, % of peak; < 0 not measured
    /// What binds: the busiest of DRAM, L2, L1 (memory) and pipe, issue (compute); for latency-
    /// and launch-bound kernels the busiest unit all the same.
    bound_unit unit = bound_unit::dram;
    bound_class cls = bound_class::latency;
    std::string lever;              ///< what to try first
    std::string why;                ///< the facts behind the class
    std::uint64_t launch_index = 0; ///< the profiled launch it describes
    bool operator==(const roofline_point&) const = default;
};

struct roofline_thresholds {
    double latency_pct = 30;              ///< below this on both roofs: latency-bound
    double launch_max_kernel_ns = 10'000; ///< launch-bound only for kernels this short …
    double launch_min_gap_ratio = 1.0;    ///< … whose GPU idles at least this x their duration
};

/// Place each kernel on the roofline; time shares are over `works`.
std::vector<roofline_point> classify(std::span<const kernel_work> works,
                                     const roofline_roofs& roofs,
                                     const roofline_thresholds& thresholds = {});

/// Adds the timeline of `.ktrace` files to a metrics document: per kernel (matched by demangled
/// or mangled name) its launch count and total GPU time, the trace's mean idle gap between
/// kernels (a whole-run figure: the aggregate keeps no per-kernel gaps), and the GPU name when
/// the document has none. Kernels absent from the traces keep their values.
void join_trace_timeline(metrics::kernel_metrics_doc& doc, const std::vector<std::string>& traces);

/// The metrics a `ktune profile --metrics` run stored in its .ktrace (the metrics chunk), joined
/// to that trace's timeline (join_trace_timeline), kernel names demangled. Samples of user ranges
/// (`--replay launches`) take the kernel's time from the profiled launch's own record (else the
/// kernel's mean), and their elapsed throughputs are rescaled from the range to the kernel.
/// Samples merged from several launches (`pass_launches` > 1) whose launches of the same shape
/// vary in time by more than 25 % are moved to `mixed_work`.
struct trace_metrics {
    metrics::kernel_metrics_doc doc;
    std::size_t joined_by_correlation = 0; ///< samples whose correlation id is a kernel record
    /// Samples left out because their passes came from launches doing different work: the
    /// kernel's launches of that grid and block took visibly different times (e.g. a persistent
    /// GEMM kernel run at several problem sizes on one grid), as "name: min..max us".
    std::vector<std::string> mixed_work;
};
/// Throws error_kind::input when the trace has no metrics chunk (recorded without --metrics).
trace_metrics metrics_from_trace(const std::string& path);

/// A whole metrics document on the roofline of its GPU.
struct roofline_analysis {
    roofline_roofs roofs;
    std::vector<roofline_point> points; ///< largest time share first
    /// Kernels left out: their sample lacks the duration or DRAM bytes (CUPTI evaluated no
    /// number for them), as "name: what is missing".
    std::vector<std::string> unevaluated;
};

/// Roofs for `gpu` ("auto": the document's GPU) from the spec table, with the document's
/// measured peaks in place of the datasheet values. Throws error_kind::not_found for a GPU
/// the table lacks, naming `ktune device --list`.
roofline_analysis analyse_roofline(const metrics::kernel_metrics_doc& doc,
                                   std::string_view gpu = "auto",
                                   const roofline_thresholds& thresholds = {});

} // namespace ktune::analysis
