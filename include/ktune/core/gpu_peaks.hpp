#pragma once
// Vendor datasheet peaks of the GPUs ktune knows, dense (no structured sparsity). They are the
// roofs of the roofline until `ktune device --measure` replaces them with measured ones.
//
//   if (auto p = ktune::find_gpu_peaks("NVIDIA H200")) use(p->dram_gbs);

#include <optional>
#include <span>
#include <string_view>

namespace ktune {

struct gpu_peaks {
    std::string_view name;         ///< canonical, e.g. "H100 SXM"
    std::string_view arch;         ///< "sm_90"
    double fp32_tflops = 0;        ///< non-tensor FP32
    double fp64_tflops = 0;        ///< non-tensor FP64
    double fp16_tensor_tflops = 0; ///< FP16/BF16 tensor, dense, FP32 accumulate
    double tf32_tensor_tflops = 0; ///< dense
    double fp8_tensor_tflops = 0;  ///< dense; 0 where the GPU has no FP8 tensor cores
    double dram_gbs = 0;           ///< GB/s (10^9 bytes)
    double memory_gb = 0;          ///< GB of device memory of the variant
    std::string_view source;       ///< where the numbers come from
};

/// All known GPUs, newest last.
std::span<const gpu_peaks> known_gpus() noexcept;

/// Match a driver-reported name ("NVIDIA H100 80GB HBM3", "Tesla V100-SXM2-32GB", …) or a
/// canonical name ("H100 SXM") to its peaks. Case-insensitive.
std::optional<gpu_peaks> find_gpu_peaks(std::string_view device_name) noexcept;

} // namespace ktune
