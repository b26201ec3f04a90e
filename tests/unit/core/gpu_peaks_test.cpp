#include "catch.hpp"

#include "ktune/core/gpu_peaks.hpp"

#include <string>

TEST_CASE("driver-reported names map to their datasheet entries") {
    struct row {
        const char* reported;
        const char* canonical;
    };
    const row rows[] = {
        {"NVIDIA H200", "H200"},
        {"NVIDIA H100 80GB HBM3", "H100 SXM"},
        {"NVIDIA H100 PCIe", "H100 PCIe"},
        {"NVIDIA A100-SXM4-80GB", "A100 SXM4 80GB"},
        {"NVIDIA A100-PCIE-40GB", "A100 PCIe 40GB"},
        {"Tesla V100-SXM2-32GB", "V100 SXM2"},
        {"NVIDIA L4", "L4"},
        {"NVIDIA L40S", "L40S"},
        {"NVIDIA B200", "B200"},
        {"h100 sxm", "H100 SXM"},
    };
    for (const auto& r : rows) {
        INFO(r.reported);
        auto p = ktune::find_gpu_peaks(r.reported);
        REQUIRE(p.has_value());
        CHECK(std::string(p->name) == r.canonical);
    }
    CHECK_FALSE(ktune::find_gpu_peaks("NVIDIA GeForce GT 710").has_value());
}

TEST_CASE("every known GPU has complete, plausible peaks and a named source") {
    REQUIRE(ktune::known_gpus().size() >= 9);
    for (const auto& g : ktune::known_gpus()) {
        INFO(std::string(g.name));
        CHECK(g.fp32_tflops > 5);
        CHECK(g.fp64_tflops > 0);
        CHECK(g.fp16_tensor_tflops > g.fp32_tflops);
        CHECK(g.dram_gbs > 250);
        CHECK(!g.source.empty());
        CHECK(g.arch.substr(0, 3) == "sm_");
        if (g.arch >= "sm_89") CHECK(g.fp8_tensor_tflops > g.fp16_tensor_tflops);
    }
    // The H200 is an H100 SXM with faster memory: its ridge point sits lower.
    const auto h100 = *ktune::find_gpu_peaks("H100 SXM");
    const auto h200 = *ktune::find_gpu_peaks("H200");
    CHECK(h200.fp16_tensor_tflops == h100.fp16_tensor_tflops);
    CHECK(h200.dram_gbs > h100.dram_gbs);
}
