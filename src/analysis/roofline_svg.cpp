// The roofline chart (see roofline_svg.hpp). Two panels: the FLOP roofline for kernels that do
// floating-point work, and a bandwidth view for those that do none (they have no height on a
// FLOP chart; stacked at its corner they hid half of a training step). Colour says which unit
// binds (each memory level its own), labels never overlap (svg_labels.cpp), and crowded names
// become numbers with a legend.
#include "ktune/analysis/roofline_svg.hpp"

#include "analysis/roofline_svg_bandwidth.hpp"
#include "analysis/roofline_svg_parts.hpp"
#include "analysis/svg_labels.hpp"
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

constexpr int k_left = 90, k_right = 300, k_top = 50, k_bottom = 60; // plot margins, px

using ::ktune::detail::xml_escape;
using namespace detail;

std::string flops_label(double v) {
    if (v >= 1e15) return fmt::format("{:g} P", v / 1e15);
    if (v >= 1e12) return fmt::format("{:g} T", v / 1e12);
    if (v >= 1e9) return fmt::format("{:g} G", v / 1e9);
    return fmt::format("{:g} M", v / 1e6);
}

struct log_axis {
    double lo, hi; // decades (log10)
    double px0, px1;
    [[nodiscard]] double at(double v) const {
        return px0 + (std::log10(v) - lo) / (hi - lo) * (px1 - px0);
    }
};

std::string text_at(const box& b, std::string_view cls, std::string_view text,
                    std::string_view fill = "black") {
    return fmt::format("<text class=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" "
                       "fill=\"{}\">{}</text>\n",
                       cls, b.x, b.y + label_ascent, fill, xml_escape(text));
}

// Legend column right of the plot: units by colour, class styles, bubble sizes.
std::string legend(double x, double y) {
    std::string s;
    s += fmt::format("<text class=\"heading\" x=\"{}\" y=\"{}\" font-weight=\"bold\">what binds "
                     "(colour)</text>\n",
                     x, y);
    y += 18;
    for (auto u :
         {bound_unit::dram, bound_unit::l2, bound_unit::l1, bound_unit::pipe, bound_unit::issue}) {
        s += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"6\" fill=\"{}\" fill-opacity=\"0.6\"/>",
                         x + 6, y - 4, unit_colour(u));
        s += text_at({x + 18, y - 4 - label_ascent + 4, 0, 0}, "legend", to_string(u));
        y += 17;
    }
    y += 4;
    s += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"6\" fill=\"{}\" fill-opacity=\"0.1\" "
                     "stroke=\"{}\" stroke-dasharray=\"3 2\"/>",
                     x + 6, y - 4, unit_colour(bound_unit::dram), unit_colour(bound_unit::dram));
    s += text_at({x + 18, y - 10, 0, 0}, "legend", "latency-bound (busiest unit's colour)");
    y += 17;
    s += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"6\" fill=\"#7f7f7f\" fill-opacity=\"0.6\"/>",
                     x + 6, y - 4);
    s += text_at({x + 18, y - 10, 0, 0}, "legend", "launch-bound");
    y += 24;
    s += fmt::format("<text class=\"heading\" x=\"{}\" y=\"{}\" font-weight=\"bold\">bubble area: "
                     "share of GPU time</text>\n",
                     x, y);
    y += 8;
    for (const double share : {0.01, 0.1, 0.5}) {
        const double r = bubble_radius(share);
        s += fmt::format("<circle class=\"size\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" "
                         "fill=\"none\" stroke=\"#555\"/>",
                         x + 26, y + r, r);
        s += text_at({x + 56, y + r - label_ascent + 4, 0, 0}, "legend",
                     fmt::format("{:g} %", 100 * share));
        y += 2 * r + 6;
    }
    return s;
}

} // namespace

std::string render_roofline_svg(std::span<const roofline_point> points, const roofline_roofs& roofs,
                                const svg_options& o) {
    std::vector<const roofline_point*> flops, none;
    for (const auto& p : points)
        (p.flops_per_s > 0 ? flops : none).push_back(&p);
    const auto by_share = [](auto* a, auto* b) { return a->time_share > b->time_share; };
    std::ranges::stable_sort(flops, by_share);
    std::ranges::stable_sort(none, by_share);

    double roof_max = 0, roof_min = INFINITY;
    for (double r : roofs.flops_per_s)
        if (r > 0) roof_max = std::max(roof_max, r), roof_min = std::min(roof_min, r);
    if (roof_max <= 0) roof_max = roof_min = 1e12;
    const double bw = roofs.dram_bytes_per_s;
    // Axis ranges in whole decades that hold every ceiling, ridge and plotted point.
    double xlo = -2, xhi = 4, ylo = std::floor(std::log10(roof_min)) - 3,
           yhi = std::ceil(std::log10(roof_max * 1.5));
    for (const auto* p : flops) {
        if (std::isfinite(p->intensity) && p->intensity > 0) {
            xlo = std::min(xlo, std::floor(std::log10(p->intensity)));
            xhi = std::max(xhi, std::ceil(std::log10(p->intensity)));
        }
        ylo = std::min(ylo, std::floor(std::log10(p->flops_per_s)));
    }
    const double plot_r = o.width - k_right, plot_b = o.height - k_bottom;
    const log_axis x{xlo, xhi, double(k_left), plot_r};
    const log_axis y{ylo, yhi, plot_b, double(k_top)};
    const auto clamp_x = [&](double v) {
        return std::clamp(v, std::pow(10, xlo), std::pow(10, xhi));
    };
    const auto clamp_y = [&](double v) {
        return std::clamp(v, std::pow(10, ylo), std::pow(10, yhi));
    };

    std::string s;
    s += fmt::format("<text x=\"{}\" y=\"28\" font-size=\"16\" font-weight=\"bold\">{}</text>\n",
                     k_left, xml_escape(o.title.empty() ? "Roofline: " + roofs.gpu : o.title));
    for (double d = xlo; d <= xhi; ++d) {
        const double px = x.at(std::pow(10, d));
        s += fmt::format(
            "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#ddd\"/>"
            "<text class=\"tick\" x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4:g}"
            "</text>\n",
            px, k_top, plot_b, plot_b + 18, std::pow(10, d));
    }
    for (double d = ylo; d <= yhi; ++d) {
        const double py = y.at(std::pow(10, d));
        s += fmt::format(
            "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#ddd\"/>"
            "<text class=\"tick\" x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}"
            "</text>\n",
            k_left, py, plot_r, k_left - 6, py + 4, flops_label(std::pow(10, d)));
    }
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">arithmetic intensity "
                     "(FLOP per DRAM byte)</text>\n",
                     (k_left + plot_r) / 2, plot_b + 42);
    s += fmt::format("<text transform=\"translate(22,{}) rotate(-90)\" text-anchor=\"middle\">"
                     "FLOP/s</text>\n",
                     (k_top + plot_b) / 2);

    // DRAM slope up to the highest ridge, then one ceiling per known roof from its ridge on.
    const double top_ridge = roof_max / bw;
    s += fmt::format("<line class=\"dram\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
                     "stroke=\"black\" stroke-width=\"2\"/>\n",
                     x.at(std::pow(10, xlo)), y.at(clamp_y(std::pow(10, xlo) * bw)),
                     x.at(clamp_x(top_ridge)), y.at(clamp_y(clamp_x(top_ridge) * bw)));
    std::vector<box> obstacles;
    {
        const std::string t = fmt::format("DRAM {:.0f} GB/s", bw / 1e9);
        const box b{x.at(std::pow(10, xlo)) + 6,
                    y.at(clamp_y(std::pow(10, xlo) * bw)) - 8 - label_ascent,
                    label_char_width * double(t.size()), label_line_height};
        s += text_at(b, "roof", t);
        obstacles.push_back(b);
    }
    // Ceiling names right of the plot, pushed apart where two roofs sit close (FP64 and FP32).
    std::vector<std::pair<double, std::string>> ceiling_labels;
    for (std::size_t k = 0; k < compute_kind_count; ++k) {
        const double roof = roofs.flops_per_s[k];
        if (roof <= 0 || static_cast<compute_kind>(k) == compute_kind::fp16) continue;
        const double ridge = roof / bw, py = y.at(roof);
        s += fmt::format("<line class=\"ceiling\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2}\" "
                         "y2=\"{1:.1f}\" stroke=\"black\" stroke-width=\"2\"/>\n",
                         x.at(clamp_x(ridge)), py, plot_r);
        s += fmt::format("<line class=\"ridge\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" "
                         "y2=\"{2}\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>\n",
                         x.at(clamp_x(ridge)), py, plot_b);
        ceiling_labels.emplace_back(py, fmt::format("{} {} (ridge {:.0f})",
                                                    to_string(static_cast<compute_kind>(k)),
                                                    flops_label(roof), ridge));
    }
    std::ranges::sort(ceiling_labels);
    double next_y = -1e9;
    for (const auto& [py, t] : ceiling_labels) {
        const double top = std::max(py - label_line_height / 2, next_y);
        s += text_at({plot_r + 4, top, 0, 0}, "roof", t);
        next_y = top + label_line_height;
    }
    const double legend_top = std::max(next_y + 20, k_top + 120.0);

    // Bubbles, biggest first so small ones stay visible on top; then their labels.
    std::vector<label_request> requests;
    std::vector<const roofline_point*> labelled;
    std::set<std::string> names;
    for (const auto* p : flops) {
        const double ai =
            std::isfinite(p->intensity) && p->intensity > 0 ? p->intensity : std::pow(10, xhi);
        const double px = x.at(clamp_x(ai)), py = y.at(clamp_y(p->flops_per_s));
        const double r = bubble_radius(p->time_share);
        s += kernel_marker(*p, px, py, r);
        // Several samples of one kernel sit on top of each other: each name once.
        if (labelled.size() < o.max_labels && names.insert(p->name).second) {
            requests.push_back({px, py, r, cut_middle(short_kernel_name(p->name), 40)});
            labelled.push_back(p);
        }
    }
    const box plot{double(k_left), double(k_top), plot_r - k_left, plot_b - k_top};
    const auto placed =
        place_labels(requests, plot, obstacles, label_char_width, label_line_height);
    std::vector<std::pair<int, const roofline_point*>> numbered;
    for (std::size_t i = 0; i < placed.size(); ++i) {
        const auto& q = requests[i];
        const auto& pl = placed[i];
        if (pl.number > 0) numbered.emplace_back(pl.number, labelled[i]);
        if (pl.how == label_place::kind::none) continue;
        if (pl.leader)
            s += fmt::format("<line class=\"leader\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" "
                             "y2=\"{:.1f}\" stroke=\"#888\" stroke-width=\"0.8\"/>\n",
                             q.px, q.py, std::clamp(q.px, pl.at.x, pl.at.x + pl.at.w),
                             std::clamp(q.py, pl.at.y, pl.at.y + pl.at.h));
        s += text_at(pl.at, pl.how == label_place::kind::text ? "label" : "number",
                     pl.how == label_place::kind::text ? q.text : std::to_string(pl.number));
    }
    s += legend(plot_r + 12, legend_top);

    double bottom = o.height;
    bottom += bandwidth_panel(s, none, roofs, bottom, k_left, plot_r);
    if (!numbered.empty()) {
        s += fmt::format("<text class=\"heading\" x=\"{}\" y=\"{:.1f}\" font-weight=\"bold\">"
                         "numbered kernels (no room for their names)</text>\n",
                         k_left, bottom + 14);
        bottom += 20;
        for (const auto& [n, p] : numbered) {
            s += text_at({double(k_left), bottom, 0, 0}, "legend-row",
                         fmt::format("{}  {} ({}, {}; {:.1f} % of time)", n,
                                     cut_middle(short_kernel_name(p->name), 60), to_string(p->cls),
                                     to_string(p->unit), 100 * p->time_share));
            bottom += label_line_height + 2;
        }
        bottom += 8;
    }
    bottom += 16;
    s +=
        fmt::format("<text x=\"{}\" y=\"{:.1f}\" font-size=\"10\" fill=\"#555\">roofs: {}</text>\n",
                    k_left, bottom - 4, xml_escape(roofs.source));
    const int height = static_cast<int>(std::ceil(bottom));
    return fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
                       "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n"
                       "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
                       o.width, height) +
           s + "</svg>\n";
}

} // namespace ktune::analysis
