// `ktune device --measure --json` against its golden file
// (docs/formats.md#ktunedevice_measure): synthetic rates, one of them failed.
#include "catch.hpp"

#include "ktune/metrics/device_measure.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

TEST_CASE("ktune.device_measure JSON matches its golden file") {
    ktune::metrics::device_measurement m;
    m.rates = {{"copy", 3000.5, 2990, 3010, 10, "GB/s", "512 MiB D2D, read + written", ""},
               {"fp32_fma", 60.25, 60, 61, 10, "TFLOP/s", "NVRTC FMA chains", ""},
               {"bf16_gemm", 0, 0, 0, 0, "TFLOP/s", "", "cuBLASLt not found"}};
    m.peaks.dram_gbs = 3000.5;
    m.peaks.fp32_tflops = 60.25;
    const std::string actual =
        ktune::metrics::device_measure_json("NVIDIA H100 80GB HBM3", m,
                                            "/home/u/.cache/ktune/peaks/NVIDIA_H100.json") +
        "\n";
    const std::string path = std::string(KTUNE_TEST_DATA_DIR) + "/reports/device_measure.json";
    if (std::getenv("KTUNE_UPDATE_GOLDEN")) std::ofstream(path) << actual; // regenerate
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    CHECK(actual == ss.str());
}
