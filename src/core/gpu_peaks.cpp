#include "ktune/core/gpu_peaks.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace ktune {
namespace {

// Dense peaks (vendor datasheets list sparse tensor rates as 2x these). FP64 is the non-tensor
// rate. Where a datasheet gives no FP64 figure (Ada), it is FP32/64, the Ada SM ratio.
constexpr std::array<gpu_peaks, 11> k_gpus{{
    // NVIDIA Tesla V100 datasheet (2020), SXM2 column.
    {"V100 SXM2", "sm_70", 15.7, 7.8, 125, 0, 0, 900, 32,
     "NVIDIA V100 Tensor Core GPU datasheet, SXM2"},
    // Same datasheet, PCIe column.
    {"V100 PCIe", "sm_70", 14.0, 7.0, 112, 0, 0, 900, 32,
     "NVIDIA V100 Tensor Core GPU datasheet, PCIe"},
    // NVIDIA A100 datasheet (2021), A100 80GB SXM column.
    {"A100 SXM4 80GB", "sm_80", 19.5, 9.7, 312, 156, 0, 2039, 80,
     "NVIDIA A100 datasheet, 80GB SXM"},
    // Same datasheet, A100 40GB PCIe column (the GPU of the bundled recorded spaces).
    {"A100 PCIe 40GB", "sm_80", 19.5, 9.7, 312, 156, 0, 1555, 40,
     "NVIDIA A100 datasheet, 40GB PCIe"},
    // NVIDIA L4 datasheet (2023): TF32 120*, BF16 242*, FP8 485* (*sparse).
    {"L4", "sm_89", 30.3, 30.3 / 64, 121, 60, 242.5, 300, 24,
     "NVIDIA L4 Tensor Core GPU datasheet"},
    // NVIDIA L40S datasheet (2023): TF32 366*, BF16 733*, FP8 1466* (*sparse).
    {"L40S", "sm_89", 91.6, 91.6 / 64, 362.05, 183, 733, 864, 48, "NVIDIA L40S datasheet"},
    // NVIDIA H100 datasheet (2023), H100 SXM column: TF32 989*, BF16 1979*, FP8 3958* (*sparse).
    {"H100 SXM", "sm_90", 67, 34, 989.5, 494.5, 1979, 3350, 80,
     "NVIDIA H100 Tensor Core GPU datasheet, SXM"},
    // Same datasheet, H100 PCIe column: TF32 756*, BF16 1513*, FP8 3026* (*sparse).
    {"H100 PCIe", "sm_90", 51, 26, 756.5, 378, 1513, 2000, 80,
     "NVIDIA H100 Tensor Core GPU datasheet, PCIe"},
    // NVIDIA H200 datasheet (2024), SXM column: H100 SXM compute, HBM3e at 4.8 TB/s.
    {"H200", "sm_90", 67, 34, 989.5, 494.5, 1979, 4800, 141,
     "NVIDIA H200 Tensor Core GPU datasheet, SXM"},
    // NVIDIA HGX B200 datasheet (2024), 8-GPU totals divided by 8 and halved from sparse:
    // TF32 18 PF*, BF16 36 PF*, FP8 72 PF*, FP64 296 TF, 8 TB/s per GPU; FP32 from the
    // Blackwell architecture technical brief (approximate).
    {"B200", "sm_100", 75, 37, 2250, 1125, 4500, 8000, 180, "NVIDIA HGX B200 datasheet (per GPU)"},
    // NVIDIA RTX 6000 Ada datasheet is omitted; GH200 reuses the H100 SXM compute with 4 TB/s.
    {"GH200", "sm_90", 67, 34, 989.5, 494.5, 1979, 4000, 96, "NVIDIA GH200 Grace Hopper datasheet"},
}};

// Substring rules from driver-reported names to canonical entries; first match wins, so the
// more specific rules come first.
struct rule {
    std::array<std::string_view, 2> tokens;
    std::string_view canonical;
};
constexpr std::array<rule, 12> k_rules{{
    {{"v100", "pcie"}, "V100 PCIe"},
    {{"v100", ""}, "V100 SXM2"},
    {{"a100", "pcie"}, "A100 PCIe 40GB"},
    {{"a100", ""}, "A100 SXM4 80GB"},
    {{"l40s", ""}, "L40S"},
    {{"l4", ""}, "L4"},
    {{"gh200", ""}, "GH200"},
    {{"h100", "pcie"}, "H100 PCIe"},
    {{"h100", ""}, "H100 SXM"},
    {{"h200", ""}, "H200"},
    {{"b200", ""}, "B200"},
    {{"", ""}, ""},
}};

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

std::optional<gpu_peaks> by_canonical(std::string_view name) {
    const std::string n = lower(name);
    for (const auto& g : k_gpus)
        if (lower(g.name) == n) return g;
    return std::nullopt;
}

// "l4" must not match "l40s": a token matches only when not followed by a digit or letter.
bool contains_token(const std::string& hay, std::string_view tok) {
    for (std::size_t pos = hay.find(tok); pos != std::string::npos; pos = hay.find(tok, pos + 1)) {
        const std::size_t end = pos + tok.size();
        if (end == hay.size() || !std::isalnum(static_cast<unsigned char>(hay[end]))) return true;
    }
    return false;
}

} // namespace

std::span<const gpu_peaks> known_gpus() noexcept {
    return k_gpus;
}

std::optional<gpu_peaks> find_gpu_peaks(std::string_view device_name) noexcept {
    try {
        if (auto g = by_canonical(device_name)) return g;
        const std::string n = lower(device_name);
        for (const auto& r : k_rules) {
            if (r.tokens[0].empty()) break;
            if (!contains_token(n, r.tokens[0])) continue;
            if (!r.tokens[1].empty() && n.find(r.tokens[1]) == std::string::npos) continue;
            return by_canonical(r.canonical);
        }
    } catch (...) { // allocation failure: no match rather than a throw from a noexcept lookup
    }
    return std::nullopt;
}

} // namespace ktune
