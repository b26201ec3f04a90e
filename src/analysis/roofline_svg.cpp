#include "ktune/analysis/roofline_svg.hpp"
#include "core/xml_escape.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <string>
#include <vector>

namespace ktune::analysis {
namespace {

constexpr int k_left = 90, k_right = 250, k_top = 50, k_bottom = 60; // plot margins, px

using ::ktune::detail::xml_escape;

std::string short_name(std::string_view name) {
    // Template arguments make kernel names unreadable in a chart; keep the head.
    if (const auto lt = name.find('<'); lt != std::string_view::npos && lt > 0)
        name = name.substr(0, lt);
    if (const auto paren = name.find('('); paren != std::string_view::npos && paren > 0)
        name = name.substr(0, paren);
    // Drop the return type and namespaces: "void at::native::foo" -> "foo".
    if (const auto sp = name.rfind(' '); sp != std::string_view::npos) name = name.substr(sp + 1);
    if (const auto ns = name.rfind("::"); ns != std::string_view::npos) name = name.substr(ns + 2);
    if (name.size() > 36) return std::string(name.substr(0, 33)) + "...";
    return std::string(name);
}

std::string flops_label(double v) {
    if (v >= 1e15) return fmt::format("{:g} P", v / 1e15);
    if (v >= 1e12) return fmt::format("{:g} T", v / 1e12);
    if (v >= 1e9) return fmt::format("{:g} G", v / 1e9);
    return fmt::format("{:g} M", v / 1e6);
}

std::string_view class_colour(bound_class c) {
    switch (c) {
    case bound_class::memory:
        return "#1f77b4";
    case bound_class::compute:
        return "#d62728";
    case bound_class::latency:
        return "#ff7f0e";
    case bound_class::launch:
        return "#7f7f7f";
    }
    return "#000";
}

struct log_axis {
    double lo, hi; // decades (log10)
    double px0, px1;
    [[nodiscard]] double at(double v) const {
        return px0 + (std::log10(v) - lo) / (hi - lo) * (px1 - px0);
    }
};

} // namespace

std::string render_roofline_svg(std::span<const roofline_point> points, const roofline_roofs& roofs,
                                const svg_options& o) {
    double roof_max = 0, roof_min = INFINITY;
    for (double r : roofs.flops_per_s)
        if (r > 0) roof_max = std::max(roof_max, r), roof_min = std::min(roof_min, r);
    if (roof_max <= 0) roof_max = roof_min = 1e12;
    const double bw = roofs.dram_bytes_per_s;

    // Axis ranges in whole decades that hold every ceiling, ridge and finite point.
    double xlo = -2, xhi = 4, ylo = std::floor(std::log10(roof_min)) - 3,
           yhi = std::ceil(std::log10(roof_max * 1.5));
    for (const auto& p : points) {
        if (std::isfinite(p.intensity) && p.intensity > 0) {
            xlo = std::min(xlo, std::floor(std::log10(p.intensity)));
            xhi = std::max(xhi, std::ceil(std::log10(p.intensity)));
        }
        if (p.flops_per_s > 0) ylo = std::min(ylo, std::floor(std::log10(p.flops_per_s)));
    }
    const log_axis x{xlo, xhi, double(k_left), double(o.width - k_right)};
    const log_axis y{ylo, yhi, double(o.height - k_bottom), double(k_top)};
    const auto clamp_x = [&](double v) {
        return std::clamp(v, std::pow(10, xlo), std::pow(10, xhi));
    };
    const auto clamp_y = [&](double v) {
        return std::clamp(v, std::pow(10, ylo), std::pow(10, yhi));
    };

    std::string s = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} "
        "{1}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" "
        "fill=\"white\"/>\n",
        o.width, o.height);
    s += fmt::format("<text x=\"{}\" y=\"28\" font-size=\"16\" font-weight=\"bold\">{}</text>\n",
                     k_left, xml_escape(o.title.empty() ? "Roofline: " + roofs.gpu : o.title));
    // Decade grid and tick labels.
    for (double d = xlo; d <= xhi; ++d) {
        const double px = x.at(std::pow(10, d));
        s += fmt::format(
            "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#ddd\"/>"
            "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4:g}</text>\n",
            px, k_top, o.height - k_bottom, o.height - k_bottom + 18, std::pow(10, d));
    }
    for (double d = ylo; d <= yhi; ++d) {
        const double py = y.at(std::pow(10, d));
        s += fmt::format(
            "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#ddd\"/>"
            "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>\n",
            k_left, py, o.width - k_right, k_left - 6, py + 4, flops_label(std::pow(10, d)));
    }
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">arithmetic intensity "
                     "(FLOP per DRAM byte)</text>\n",
                     (k_left + o.width - k_right) / 2, o.height - 18);
    s += fmt::format("<text transform=\"translate(22,{}) rotate(-90)\" text-anchor=\"middle\">"
                     "FLOP/s</text>\n",
                     (k_top + o.height - k_bottom) / 2);

    // DRAM slope up to the highest ridge, then one ceiling per known roof from its ridge on.
    const double top_ridge = roof_max / bw;
    s += fmt::format("<line class=\"dram\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
                     "stroke=\"black\" stroke-width=\"2\"/>\n",
                     x.at(std::pow(10, xlo)), y.at(clamp_y(std::pow(10, xlo) * bw)),
                     x.at(clamp_x(top_ridge)), y.at(clamp_y(clamp_x(top_ridge) * bw)));
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"black\">DRAM {:.0f} GB/s</text>\n",
                     x.at(std::pow(10, xlo)) + 6, y.at(clamp_y(std::pow(10, xlo) * bw)) - 8,
                     bw / 1e9);
    for (std::size_t k = 0; k < compute_kind_count; ++k) {
        const double roof = roofs.flops_per_s[k];
        // FP16 SASS shares FP32's roof in ncu's units; one line for both.
        if (roof <= 0 || static_cast<compute_kind>(k) == compute_kind::fp16) continue;
        const double ridge = roof / bw;
        const double py = y.at(roof);
        s += fmt::format("<line class=\"ceiling\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2}\" "
                         "y2=\"{1:.1f}\" stroke=\"black\" stroke-width=\"2\"/>\n",
                         x.at(clamp_x(ridge)), py, o.width - k_right);
        s += fmt::format("<line class=\"ridge\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" "
                         "y2=\"{2}\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>\n",
                         x.at(clamp_x(ridge)), py, o.height - k_bottom);
        s += fmt::format("<text x=\"{}\" y=\"{:.1f}\">{} {} (ridge {:.0f})</text>\n",
                         o.width - k_right + 4, py + 4, to_string(static_cast<compute_kind>(k)),
                         flops_label(roof), ridge);
    }

    // Points, the biggest first so small ones stay visible on top.
    std::vector<std::size_t> order(points.size());
    std::iota(order.begin(), order.end(), 0);
    std::ranges::sort(order,
                      [&](auto a, auto b) { return points[a].time_share > points[b].time_share; });
    // Several sampled launches of one kernel sit on top of each other: label each name once.
    std::set<std::string> labelled;
    for (std::size_t rank = 0; rank < order.size(); ++rank) {
        const auto& p = points[order[rank]];
        const double ai = std::isfinite(p.intensity) && p.intensity > 0 ? p.intensity
                          : p.intensity > 0                             ? std::pow(10, xhi)
                                                                        : std::pow(10, xlo);
        const double px = x.at(clamp_x(ai)),
                     py = y.at(clamp_y(p.flops_per_s > 0 ? p.flops_per_s : std::pow(10, ylo)));
        const double r = 3 + 22 * std::sqrt(std::clamp(p.time_share, 0.0, 1.0));
        // A kernel without FLOPs has no height on this chart: a hollow marker on the floor.
        const bool no_flops = !(p.flops_per_s > 0);
        s += fmt::format(
            "<circle class=\"kernel\" data-kernel=\"{}\" data-intensity=\"{:g}\" "
            "data-share=\"{:.4f}\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" fill=\"{}\" "
            "fill-opacity=\"{}\" stroke=\"{}\"><title>{}: {} ({:.1f} % of time)"
            "</title></circle>\n",
            xml_escape(p.name), p.intensity, p.time_share, px, py, r, class_colour(p.cls),
            no_flops ? "0" : "0.55", class_colour(p.cls), xml_escape(p.name), to_string(p.cls),
            100 * p.time_share);
        if (labelled.size() < o.max_labels && labelled.insert(p.name).second) {
            const std::string label = short_name(p.name) + (no_flops ? " (no FLOPs)" : "");
            // About 6.2 px per character at 11 px: a label that would run into the ceiling
            // legend on the right goes to the left of its point.
            const bool left = px + r + 3 + 6.2 * double(label.size()) > o.width - k_right;
            s += fmt::format("<text class=\"label\" x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" "
                             "text-anchor=\"{}\">{}</text>\n",
                             left ? px - r - 3 : px + r + 3, py + 4, left ? "end" : "start",
                             xml_escape(label));
        }
    }
    // Legend of classes.
    int ly = o.height - k_bottom - 80;
    for (auto c :
         {bound_class::memory, bound_class::compute, bound_class::latency, bound_class::launch}) {
        s += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"6\" fill=\"{}\" fill-opacity=\"0.55\"/>"
                         "<text x=\"{}\" y=\"{}\">{}-bound</text>\n",
                         o.width - k_right + 12, ly, class_colour(c), o.width - k_right + 24,
                         ly + 4, to_string(c));
        ly += 18;
    }
    s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"10\" fill=\"#555\">roofs: {}</text>\n",
                     k_left, o.height - 4, xml_escape(roofs.source));
    s += "</svg>\n";
    return s;
}

} // namespace ktune::analysis
