#pragma once
// Per-kernel hardware metrics as the range profiler produced them, with the timeline facts the
// classifier needs, and their JSON file (schema "ktune.kernel_metrics", version 1.x):
//
//   { "schema": "ktune.kernel_metrics", "version": "1.0.0",
//     "gpu": "NVIDIA H200", "chip": "GH100", "metric_set": "roofline", "passes": 2,
//     "dropped_ranges": 0, "denied": ["ncclKernel_AllReduce…"],
//     "measured_peaks": {"dram_gbs": 4300, "fp32_tflops": 60, "bf16_tensor_tflops": 780},
//     "kernels": [ { "name": "…", "launch_index": 7, "correlation_id": 42, "launches": 100,
//                    "total_time_ns": 2.1e6, "mean_gap_ns": 800,
//                    "values": { "gpu__time_duration.sum": 21000, … } } ] }
//
// Optional keys: launch_index, correlation_id, launches (1), total_time_ns and mean_gap_ns
// (unknown), denied, measured_peaks, cache_control ("all": L2 written back and invalidated
// before each profiled range; "none"; absent: unknown, as in 1.0 documents), replay ("kernel":
// CUPTI replays each profiled launch once per pass; "launches": pass i ran on the i-th sampled
// natural launch of the same kernel and launch shape; absent: "kernel"), incomplete_kernels (0)
// and incomplete (their names), range ("auto": CUPTI's range is the kernel; "user": ktune's
// range around the launch, so gpu__time_duration and the *_elapsed percentages span a little
// more than the kernel — the roofline then takes the kernel's time from the trace's timeline;
// absent: "auto"),
// per kernel pass_launches (1: all passes from one launch) and work (launches mode: a hash of
// the parameter bytes its passes' launches shared; absent: told apart by shape). Metric values are
// CUPTI's GPU values (ns, bytes, counts).
//
//   auto doc = ktune::metrics::read_kernel_metrics("run.metrics.json");

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::metrics {

inline constexpr std::string_view kernel_metrics_schema = "ktune.kernel_metrics";
/// 1.1: optional "cache_control". 1.2: optional "replay", "incomplete_kernels", per kernel
/// "pass_launches". 1.3: optional "range". 1.4: optional per kernel "work".
inline constexpr std::string_view kernel_metrics_version = "1.4.0";

/// One profiled launch of a kernel, joined to the timeline of all its launches.
struct kernel_sample {
    std::string name;
    std::uint64_t launch_index = 0;   ///< position among the process's kernel launches
    std::uint64_t correlation_id = 0; ///< CUPTI correlation id of the profiled launch; 0 unknown
    std::uint64_t launches = 1;       ///< launches of this kernel in the run (timeline)
    double total_time_ns = 0;         ///< GPU time of all its launches; 0 = unknown
    double mean_gap_ns = -1;          ///< mean GPU idle time before its launches; < 0 unknown
    std::map<std::string, double> values; ///< metric name -> GPU value
    /// Natural launches its metric passes ran on: 1 = one launch (kernel replay, or a set of
    /// one pass); N = pass i on the i-th sampled launch of this name and launch shape.
    std::uint64_t pass_launches = 1;
    /// Launches mode: hash of the parameter bytes every pass's launch shared (16 hex digits),
    /// so the passes did the same work; "" where launches were told apart by shape only.
    std::string work{};
    bool operator==(const kernel_sample&) const = default;
};

/// Peaks measured on the device (`ktune device --measure`); 0 = not measured.
struct measured_peaks {
    double dram_gbs = 0;           ///< copy bandwidth, bytes read + written, 10^9 B/s
    double fp32_tflops = 0;        ///< FP32 FMA rate
    double bf16_tensor_tflops = 0; ///< bf16 tensor rate of a large GEMM
    bool operator==(const measured_peaks&) const = default;
};

struct kernel_metrics_doc {
    std::string gpu;        ///< device name as the driver reports it
    std::string chip;       ///< CUPTI chip name
    std::string metric_set; ///< "roofline", …
    std::size_t passes = 0;
    std::uint64_t dropped_ranges = 0; ///< ranges CUPTI dropped (counter image too small)
    std::vector<std::string> denied;  ///< kernels kept out of the range profiler (never serialised)
    std::string cache_control;        ///< "all", "none", "" unknown (see the file comment)
    std::string replay = "kernel";    ///< "kernel" or "launches" (see the file comment)
    std::string range = "auto";       ///< "auto" or "user" (see the file comment)
    /// Kernels whose passes were begun on natural launches but not all were collected (launched
    /// fewer times than the set has passes, or given up on): no metrics for them.
    std::uint64_t incomplete_kernels = 0;
    std::vector<std::string> incomplete; ///< their names, in the order they were given up
    std::optional<measured_peaks> measured;
    std::vector<kernel_sample> kernels;
    bool operator==(const kernel_metrics_doc&) const = default;
};

std::string to_json(const kernel_metrics_doc& doc);
/// Parse a document; `source` names it in errors, which give the JSON path of a bad value.
/// Throws error_kind::input (malformed, wrong schema, unknown major version).
kernel_metrics_doc parse_kernel_metrics(std::string_view text, std::string_view source);
kernel_metrics_doc read_kernel_metrics(const std::filesystem::path& path);
void write_kernel_metrics(const std::filesystem::path& path, const kernel_metrics_doc& doc);
/// The "measured_peaks" object of a JSON file: `ktune device --measure --json` output (schema
/// ktune.device_measure) or a kernel_metrics document. Throws error_kind::input without one.
measured_peaks read_measured_peaks(const std::filesystem::path& path);

} // namespace ktune::metrics
