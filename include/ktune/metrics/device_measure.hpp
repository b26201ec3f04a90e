#pragma once
// Measured peaks of a GPU, the roofs the roofline should use when they differ from the
// datasheet: D2D copy bandwidth (bytes read + written), FP32 FMA rate (an NVRTC-compiled FMA
// chain) and bf16 tensor rate (a large cuBLASLt GEMM). Each is the median of timed repeats.
//
//   auto m = ktune::metrics::measure_device(0);   // needs a GPU; throws error{no_device}
//   std::printf("%.0f GB/s\n", m.peaks.dram_gbs);

#include "ktune/metrics/kernel_metrics.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::metrics {

/// One measured rate: median and the spread (min..max) of its repeats.
struct measured_rate {
    std::string what; ///< "copy", "fp32_fma", "bf16_gemm"
    double median = 0;
    double min = 0;
    double max = 0;
    int repeats = 0;
    std::string unit;   ///< "GB/s" or "TFLOP/s"
    std::string detail; ///< the workload, e.g. "1 GiB D2D"
    std::string error;  ///< set when this rate could not be measured
    bool operator==(const measured_rate&) const = default;
};

struct device_measurement {
    measured_peaks peaks; ///< medians, 0 where a measurement failed
    std::vector<measured_rate> rates;
};

/// Measure device `ordinal`. A failing part (no cuBLASLt, NVRTC error) leaves its rate 0 with
/// the error text; no GPU throws error_kind::no_device.
device_measurement measure_device(int ordinal);

/// The datasheet figure of a measured rate (`what` of measured_rate) for `gpu_name`; 0 unknown.
double spec_rate(std::string_view gpu_name, std::string_view what);

/// `ktune device --measure --json`: schema ktune.device_measure 1.0.0, each rate beside its
/// datasheet figure (docs/formats.md#ktunedevice_measure).
std::string device_measure_json(std::string_view gpu_name, const device_measurement& m,
                                const std::filesystem::path& saved_to);

/// Where `ktune device --measure` keeps the peaks of a GPU, so `ktune profile --metrics` records
/// them in the trace without being told: $KTUNE_PEAKS_DIR, else $XDG_CACHE_HOME/ktune/peaks, else
/// ~/.cache/ktune/peaks; one ktune.device_measure JSON per GPU name ("NVIDIA_H200.json").
std::filesystem::path saved_peaks_path(std::string_view gpu_name);
/// Writes `peaks` of `gpu_name` to saved_peaks_path (creating the directory); the file is what
/// read_measured_peaks and `--peaks FILE` read. Throws error_kind::io when it cannot be written.
std::filesystem::path save_measured_peaks(std::string_view gpu_name, const measured_peaks& peaks);
/// The saved peaks file of `gpu_name`, when there is one.
std::optional<std::filesystem::path> find_saved_peaks(std::string_view gpu_name);

/// A dense tensor roof and where it came from: "measured", "measured bf16 x2" or "datasheet".
struct tensor_roof {
    double tflops = 0; ///< 0: unknown (the GPU is in neither the saved peaks nor the table)
    std::string source;
    bool operator==(const tensor_roof&) const = default;
};
/// The tensor roof a GEMM of `gpu_name` is held against: the bf16 GEMM rate `ktune device
/// --measure` saved, else the datasheet's fp16/bf16 figure. With `fp8`: twice the measured bf16
/// rate (Hopper runs fp8 at twice bf16), else the datasheet's fp8 figure. An unreadable saved
/// file counts as none.
tensor_roof find_tensor_roof(std::string_view gpu_name, bool fp8);

} // namespace ktune::metrics
