// The roofline chart's layout, read from the SVG's own geometry: no two text boxes overlap (a
// crowded synthetic case of 60 kernels, and the recorded one), kernels without FLOPs go to the
// bandwidth view, each plotted kernel is named somewhere, and colour follows what binds.
// Boxes: x, baseline y and text length at 0.6 em per character, the renderer's own estimate;
// rendering to PNG (rsvg-convert) is checked in roofline_svg_test.cpp.
#include "catch.hpp"

#include "ktune/analysis/roofline.hpp"
#include "ktune/analysis/roofline_svg.hpp"

#include <regex>
#include <string>
#include <vector>

using namespace ktune::analysis;

namespace {

struct text_box {
    std::string cls, text;
    double x0, y0, x1, y1;
};

std::string unescape(std::string s) {
    for (const auto& [from, to] :
         {std::pair{"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}, {"&quot;", "\""}, {"&apos;", "'"}})
        for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + 1))
            s.replace(at, std::string_view(from).size(), to);
    return s;
}

// Every text element with a class, as the box it covers.
std::vector<text_box> text_boxes(const std::string& svg) {
    static const std::regex re(
        R"re(<text class="([a-z-]+)" x="([-0-9.]+)" y="([-0-9.]+)"([^>]*)>([^<]*)</text>)re");
    std::vector<text_box> out;
    for (std::sregex_iterator it(svg.begin(), svg.end(), re), end; it != end; ++it) {
        const auto& m = *it;
        const std::string attrs = m[4];
        double size = 12;
        if (const auto f = attrs.find("font-size=\""); f != std::string::npos)
            size = std::stod(attrs.substr(f + 11));
        const std::string text = unescape(m[5]);
        const double w = 0.6 * size * double(text.size()), x = std::stod(m[2]), y = std::stod(m[3]);
        double x0 = x;
        if (attrs.find("text-anchor=\"end\"") != std::string::npos) x0 = x - w;
        if (attrs.find("text-anchor=\"middle\"") != std::string::npos) x0 = x - w / 2;
        out.push_back({m[1], text, x0, y - 0.8 * size, x0 + w, y + 0.25 * size});
    }
    return out;
}

// Pairs of overlapping text boxes, as "a | b".
std::vector<std::string> overlaps(const std::vector<text_box>& boxes) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < boxes.size(); ++i)
        for (std::size_t j = i + 1; j < boxes.size(); ++j) {
            const auto &a = boxes[i], &b = boxes[j];
            if (a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1)
                out.push_back(a.text + " | " + b.text);
        }
    return out;
}

roofline_roofs h100_roofs() {
    roofline_roofs r;
    r.gpu = "H100 SXM";
    r.source = "datasheet";
    r.dram_bytes_per_s = 3.35e12;
    r.flops_per_s[static_cast<std::size_t>(compute_kind::fp64)] = 67e12;
    r.flops_per_s[static_cast<std::size_t>(compute_kind::fp32)] = 67e12;
    r.flops_per_s[static_cast<std::size_t>(compute_kind::tensor_16)] = 989.5e12;
    return r;
}

// 40 GEMM-like kernels crowded into one corner of the chart, 20 kernels without FLOPs.
std::vector<roofline_point> crowded() {
    std::vector<roofline_point> pts;
    for (int i = 0; i < 60; ++i) {
        roofline_point p;
        p.name = "void at::native::some_long_kernel_name_" + std::to_string(i) +
                 "<float, 4>(float const*, float*, int)";
        p.time_share = (i % 7 + 1) / 200.0;
        if (i < 40) {
            p.intensity = 200 + 3 * i;
            p.flops_per_s = 4e14 + 2e12 * i;
            p.cls = i % 3 == 0 ? bound_class::latency : bound_class::compute;
            p.unit = i % 2 ? bound_unit::l1 : bound_unit::pipe;
        } else {
            p.intensity = 0;
            p.flops_per_s = 0;
            p.bytes_per_s = 2e12;
            p.memory_pct = 60;
            p.l2_pct = 40 + i;
            p.l1_pct = 20;
            p.cls = bound_class::memory;
            p.unit = bound_unit::l2;
        }
        pts.push_back(p);
    }
    return pts;
}

} // namespace

TEST_CASE("a crowded chart: no two text boxes overlap, every kernel is named") {
    const auto pts = crowded();
    const std::string svg = render_roofline_svg(pts, h100_roofs());
    const auto boxes = text_boxes(svg);
    REQUIRE(boxes.size() > 60);
    const auto bad = overlaps(boxes);
    INFO((bad.empty() ? std::string() : bad.front()));
    CHECK(bad.empty());
    // Each of the 40 FLOP kernels is named by a label or a numbered legend row.
    int labels = 0, rows = 0;
    for (const auto& b : boxes) {
        labels += b.cls == "label" && b.text.starts_with("some_long_kernel_name_");
        rows += b.cls == "legend-row";
    }
    CHECK(rows > 0);                 // crowded: some names moved to the numbered legend
    CHECK(labels - 20 + rows == 40); // the 20 bandwidth rows are labels too
    // The 20 kernels without FLOPs are rows of the bandwidth view, bound by L2 (teal).
    CHECK(svg.find("Kernels without FLOPs") != std::string::npos);
    std::size_t l2 = 0;
    for (auto at = svg.find("data-bound-by=\"L2\""); at != std::string::npos;
         at = svg.find("data-bound-by=\"L2\"", at + 1))
        ++l2;
    CHECK(l2 == 20);
    CHECK(svg.find("L2 99 %") != std::string::npos); // the binding level's figure, i = 59
}

TEST_CASE("the overlap check fails on overlapping labels") {
    // The check itself must be able to fail: two labels at one spot.
    const std::string svg = R"(<text class="label" x="10" y="20" font-size="11">kernel_a</text>)"
                            R"(<text class="label" x="14" y="22" font-size="11">kernel_b</text>)";
    CHECK(overlaps(text_boxes(svg)).size() == 1);
}

TEST_CASE("FP64 and FP32 roofs at one height keep their names apart") {
    const std::string svg = render_roofline_svg({}, h100_roofs());
    CHECK(overlaps(text_boxes(svg)).empty());
    CHECK(svg.find("Kernels without FLOPs") == std::string::npos); // no such kernels, no panel
}
