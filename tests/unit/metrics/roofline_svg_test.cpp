// The roofline chart: geometry checked on the SVG, then rendered to PNG by rsvg-convert (Debian
// librsvg2-bin, installed by `KTUNE_SETUP_DEV=1 scripts/setup.sh`) so a malformed chart fails.
#include "catch.hpp"

#include "ktune/analysis/roofline.hpp"
#include "ktune/analysis/roofline_svg.hpp"
#include "ktune/metrics/kernel_metrics.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

using namespace ktune::analysis;

namespace {

std::size_t count(const std::string& s, std::string_view needle) {
    std::size_t n = 0;
    for (auto at = s.find(needle); at != std::string::npos; at = s.find(needle, at + 1))
        ++n;
    return n;
}

std::vector<roofline_point> fixture_points(roofline_roofs& roofs) {
    const auto doc = ktune::metrics::read_kernel_metrics(
        KTUNE_TEST_DATA_DIR "/metrics/h200_synthetic.kernel_metrics.json");
    std::vector<kernel_work> works;
    for (const auto& k : doc.kernels)
        works.push_back(work_from_sample(k));
    roofs = roofs_from_spec(*ktune::find_gpu_peaks(doc.gpu));
    return classify(works, roofs);
}

double attr(const std::string& svg, std::string_view kernel, std::string_view name) {
    const auto at = svg.find("data-kernel=\"" + std::string(kernel) + "\"");
    REQUIRE(at != std::string::npos);
    const auto a = svg.find(std::string(" ") + std::string(name) + "=\"", at);
    REQUIRE(a != std::string::npos);
    return std::stod(svg.substr(a + name.size() + 3));
}

} // namespace

TEST_CASE("the SVG has ceilings, the DRAM slope, ridges and one point per kernel") {
    roofline_roofs roofs;
    const auto points = fixture_points(roofs);
    const std::string svg = render_roofline_svg(points, roofs);
    CHECK(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    CHECK(count(svg, "class=\"kernel\"") == points.size());
    // H200 roofs: FP64, FP32, BF16/FP16 tensor, TF32 tensor, FP8 tensor (FP16 SASS shares FP32's).
    CHECK(count(svg, "class=\"ceiling\"") == 5);
    CHECK(count(svg, "class=\"ridge\"") == 5);
    CHECK(count(svg, "class=\"dram\"") == 1);
    CHECK(svg.find("BF16/FP16 tensor 989.5 T (ridge 206)") != std::string::npos);
    CHECK(svg.find("DRAM 4800 GB/s") != std::string::npos);
    // Kernel names are XML-escaped.
    CHECK(svg.find("softmax_warp_forward&lt;float") != std::string::npos);
    CHECK(svg.find("softmax_warp_forward<float") == std::string::npos);
    CHECK(svg.find(">vectorized_elementwise_kernel</text>") != std::string::npos);
    // A kernel without FLOPs sits in the bandwidth view, not at the chart's corner.
    CHECK(svg.find(">copy_kernel_1GiB</text>") != std::string::npos);
    CHECK(svg.find("Kernels without FLOPs") != std::string::npos);
    // Legends: what binds (each memory level its colour) and bubble sizes.
    CHECK(svg.find(">L1/shared</text>") != std::string::npos);
    CHECK(count(svg, "class=\"size\"") == 3);

    // Log-log geometry: x from 10^-2 to 10^4 FLOP/B across the 570 px plot that starts at 90.
    const std::string gemm = "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT";
    const double ai = 137438953472.0 / 109051904.0;
    CHECK(attr(svg, gemm, "cx") == Approx(90 + (std::log10(ai) + 2) / 6 * 570).margin(0.1));
    // Area follows time share: the launch-bound elementwise kernel (74 % of time) is the biggest.
    const std::string add =
        "void at::native::vectorized_elementwise_kernel&lt;4, "
        "at::native::CUDAFunctor_add&lt;float&gt; &gt;(int, "
        "at::native::CUDAFunctor_add&lt;float&gt;, std::array&lt;char*, 3ul&gt;)";
    CHECK(attr(svg, add, "r") > attr(svg, gemm, "r"));
    CHECK(attr(svg, "reduce_kernel_small", "r") < attr(svg, gemm, "r"));
}

TEST_CASE("the SVG renders to a PNG") {
    if (std::system("command -v rsvg-convert >/dev/null 2>&1") != 0) {
        std::fprintf(stderr, "SKIPPED: rsvg-convert not found; install librsvg2-bin "
                             "(KTUNE_SETUP_DEV=1 scripts/setup.sh) to render-check the chart\n");
        return;
    }
    roofline_roofs roofs;
    const auto points = fixture_points(roofs);
    const auto dir = std::filesystem::temp_directory_path();
    const auto svg_path = dir / "ktune_roofline_test.svg";
    const auto png_path = dir / "ktune_roofline_test.png";
    std::filesystem::remove(png_path);
    const std::string chart = render_roofline_svg(points, roofs);
    std::ofstream(svg_path) << chart;
    const auto h_at = chart.find("height=\"") + 8;
    const auto svg_height = std::stoul(chart.substr(h_at));
    const std::string cmd =
        "rsvg-convert -o '" + png_path.string() + "' '" + svg_path.string() + "'";
    REQUIRE(std::system(cmd.c_str()) == 0);
    std::ifstream in(png_path, std::ios::binary);
    const std::string png((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    REQUIRE(png.size() > 24);
    CHECK(png.substr(1, 3) == "PNG");
    // IHDR: big-endian width and height at bytes 16..23.
    const auto be32 = [&](std::size_t at) {
        return (std::uint32_t(std::uint8_t(png[at])) << 24) |
               (std::uint32_t(std::uint8_t(png[at + 1])) << 16) |
               (std::uint32_t(std::uint8_t(png[at + 2])) << 8) |
               std::uint32_t(std::uint8_t(png[at + 3]));
    };
    CHECK(be32(16) == 960);
    CHECK(be32(20) == svg_height);
    CHECK(svg_height > 640);   // the bandwidth view below the roofline
    CHECK(png.size() > 10000); // text, lines and points, not a blank page
    std::filesystem::remove(svg_path);
    std::filesystem::remove(png_path);

    // A malformed SVG must fail to render: the check above can fail.
    std::ofstream(svg_path) << "<svg xmlns=\"http://www.w3.org/2000/svg\"><circle></svg>";
    CHECK(std::system((cmd + " 2>/dev/null").c_str()) != 0);
    std::filesystem::remove(svg_path);
}
