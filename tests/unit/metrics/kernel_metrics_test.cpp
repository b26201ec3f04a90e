#include "catch.hpp"

#include "ktune/core/error.hpp"
#include "ktune/core/gpu_peaks.hpp"
#include "ktune/metrics/device_measure.hpp"
#include "ktune/metrics/kernel_metrics.hpp"

#include <cstdlib>
#include <filesystem>
#include <string>

using namespace ktune::metrics;

TEST_CASE("kernel metrics documents round-trip through JSON") {
    kernel_metrics_doc doc;
    doc.gpu = "NVIDIA H200";
    doc.chip = "GH100";
    doc.metric_set = "roofline";
    doc.passes = 2;
    doc.dropped_ranges = 3;
    doc.denied = {"ncclKernel"};
    doc.cache_control = "all";
    doc.measured = measured_peaks{4300, 60.5, 780.25};
    kernel_sample k;
    k.name = "gemm<\"quoted\">";
    k.launch_index = 7;
    k.correlation_id = 42;
    k.launches = 100;
    k.total_time_ns = 2.5e6;
    k.mean_gap_ns = 812.5;
    k.values = {{"gpu__time_duration.sum", 21000.5}, {"dram__bytes.sum", 1.25e9}};
    k.pass_launches = 3;
    k.work = "00c0ffee12345678";
    doc.replay = "launches";
    doc.range = "user";
    doc.incomplete_kernels = 2;
    doc.incomplete = {"init_kernel", "once"};
    doc.kernels = {k, kernel_sample{"k2", 0, 0, 1, 0, -1, {{"gpu__time_duration.sum", 1}}}};
    CHECK(parse_kernel_metrics(to_json(doc), "mem") == doc);
    CHECK(to_json(doc).find("\"pass_launches\": 3") != std::string::npos);
    CHECK(to_json(doc).find("\"cache_control\": \"all\"") != std::string::npos);
    CHECK(to_json(doc).find("\"range\": \"user\"") != std::string::npos);
    CHECK(to_json(doc).find("\"work\": \"00c0ffee12345678\"") != std::string::npos);

    const auto path = std::filesystem::temp_directory_path() / "ktune_kernel_metrics_test.json";
    write_kernel_metrics(path, doc);
    CHECK(read_kernel_metrics(path) == doc);
    std::filesystem::remove(path);
}

TEST_CASE("the bundled fixture parses") {
    const auto doc =
        read_kernel_metrics(KTUNE_TEST_DATA_DIR "/metrics/h200_synthetic.kernel_metrics.json");
    CHECK(doc.chip == "GH100");
    CHECK(doc.kernels.size() == 6);
    CHECK(doc.kernels[1].launches == 20000);
    CHECK(doc.kernels[2].mean_gap_ns < 0); // absent = unknown
}

TEST_CASE("bad documents name the JSON path and what to do") {
    const auto msg = [](std::string_view text) -> std::string {
        try {
            (void)parse_kernel_metrics(text, "x.json");
        } catch (const ktune::error& e) {
            CHECK(e.kind() == ktune::error_kind::input);
            return e.what();
        }
        FAIL("accepted: " << text);
        return {};
    };
    CHECK(msg("{").find("not valid JSON") != std::string::npos);
    CHECK(msg(R"({"schema":"ktune.trace","version":"1.0.0","kernels":[]})").find("/schema") !=
          std::string::npos);
    CHECK(msg(R"({"schema":"ktune.kernel_metrics","version":"2.0.0","kernels":[]})")
              .find("upgrade ktune") != std::string::npos);
    CHECK(msg(R"({"schema":"ktune.kernel_metrics","version":"1.0.0","kernels":[{"name":"k",
              "values":{"dram__bytes.sum":"many"}}]})")
              .find("x.json: /kernels/0/values/dram__bytes.sum: expected a number") !=
          std::string::npos);
    CHECK(msg(R"({"schema":"ktune.kernel_metrics","version":"1.0.0","kernels":[{"values":{}}]})")
              .find("/kernels/0/name: missing") != std::string::npos);
    CHECK(msg(R"({"schema":"ktune.kernel_metrics","version":"1.0.0","kernels":[{"name":"k",
              "launches":0,"values":{}}]})")
              .find("/kernels/0/launches") != std::string::npos);
    CHECK(msg(R"({"schema":"ktune.kernel_metrics","version":"1.3.0","range":"x","kernels":[]})")
              .find("/range") != std::string::npos);
    CHECK(msg(R"({"schema":"ktune.kernel_metrics","version":"1.2.0","replay":"app","kernels":[]})")
              .find("/replay") != std::string::npos);
    CHECK(msg(R"({"schema":"ktune.kernel_metrics","version":"1.2.0","kernels":[{"name":"k",
              "pass_launches":0,"values":{}}]})")
              .find("/kernels/0/pass_launches") != std::string::npos);
    CHECK_THROWS_AS(read_kernel_metrics("/nonexistent/x.json"), ktune::error);
}

TEST_CASE("measured peaks are saved per GPU and read back as --peaks reads them") {
    const auto dir = std::filesystem::temp_directory_path() / "ktune_peaks_test";
    std::filesystem::remove_all(dir);
    setenv("KTUNE_PEAKS_DIR", dir.c_str(), 1);
    CHECK_FALSE(find_saved_peaks("NVIDIA H200").has_value());
    const measured_peaks p{4240.4, 65.3, 889.0};
    const auto path = save_measured_peaks("NVIDIA H200", p);
    CHECK(path == dir / "NVIDIA_H200.json"); // one file per GPU name, no spaces
    REQUIRE(find_saved_peaks("NVIDIA H200").has_value());
    CHECK(read_measured_peaks(*find_saved_peaks("NVIDIA H200")) == p);
    CHECK_FALSE(find_saved_peaks("NVIDIA H100 80GB HBM3").has_value());
    // A GEMM's tensor roof: the saved bf16 rate (fp8 at twice it), else the datasheet's.
    CHECK(find_tensor_roof("NVIDIA H200", false) == tensor_roof{889.0, "measured"});
    CHECK(find_tensor_roof("NVIDIA H200", true) == tensor_roof{1778.0, "measured bf16 x2"});
    const auto h100 = ktune::find_gpu_peaks("NVIDIA H100 80GB HBM3");
    REQUIRE(h100);
    CHECK(find_tensor_roof("NVIDIA H100 80GB HBM3", false) ==
          tensor_roof{h100->fp16_tensor_tflops, "datasheet"});
    CHECK(find_tensor_roof("NVIDIA H100 80GB HBM3", true) ==
          tensor_roof{h100->fp8_tensor_tflops, "datasheet"});
    CHECK(find_tensor_roof("no such GPU", false) == tensor_roof{0, "datasheet"});
    unsetenv("KTUNE_PEAKS_DIR");
    std::filesystem::remove_all(dir);
}
