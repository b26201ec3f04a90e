// `ktune roofline --json` (docs/formats.md#ktuneroofline) pinned byte for byte on the synthetic
// H200 fixture with the datasheet roofs; and the table's facts and warnings.
#include "golden.hpp"

#include "ktune/analysis/roofline_report.hpp"
#include "ktune/metrics/kernel_metrics.hpp"

#include <string>
#include <vector>

using namespace ktune::analysis;

namespace {

ktune::metrics::kernel_metrics_doc fixture() {
    return ktune::metrics::read_kernel_metrics(KTUNE_TEST_DATA_DIR
                                               "/metrics/h200_synthetic.kernel_metrics.json");
}

} // namespace

TEST_CASE("ktune.roofline: roofs, the document's facts and every kernel's point") {
    const auto doc = fixture();
    const auto a = analyse_roofline(doc, "NVIDIA H200");
    const std::vector<std::string> mixed{"gemm_kernel: 10.0..20.0 us"};
    const std::string json = roofline_json(a, doc, 5, mixed);
    ktune_test::check_golden(json + "\n", "reports/roofline.json");
    // A metrics file (not a trace) has no correlation join, and mixed_work is always there.
    const std::string plain = roofline_json(a, doc, std::nullopt, {});
    CHECK(plain.find("joined_by_correlation") == std::string::npos);
    CHECK(plain.find("\"mixed_work\": []") != std::string::npos);
}

TEST_CASE("the roofline table names the GPU, each kernel's lever and the warnings") {
    auto doc = fixture();
    doc.dropped_ranges = 2;
    const auto a = analyse_roofline(doc, "NVIDIA H200");
    const std::string text = format_roofline(a, doc, 5, {"gemm_kernel: 10.0..20.0 us"});
    CHECK(text.rfind("Roofline of " + std::to_string(a.points.size()) + " kernels on", 0) == 0);
    CHECK(text.find("by correlation id: 5 of " + std::to_string(doc.kernels.size())) !=
          std::string::npos);
    for (const auto& p : a.points)
        CHECK(text.find("-> " + p.lever + ": " + p.why) != std::string::npos);
    CHECK(text.find("CUPTI dropped 2 ranges") != std::string::npos);
    CHECK(text.find("1 kernel samples left out: their passes") != std::string::npos);
    CHECK(text.find("not profiled (deny-list, never serialised): ncclDevKernel") !=
          std::string::npos);
}
