// The bandwidth view: kernels without FLOPs (elementwise, reductions, norms, optimizer steps)
// have no height on a FLOP roofline, so each gets a row here instead: its throughput at every
// memory level it was measured at, as % of that level's roof (DRAM also in bytes/s), its bubble
// on the level that binds, in that level's colour.
#include "analysis/roofline_svg_bandwidth.hpp"

#include "analysis/roofline_svg_parts.hpp"
#include "core/xml_escape.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace ktune::analysis::detail {

using ::ktune::detail::xml_escape;

double bandwidth_panel(std::string& s, std::span<const roofline_point* const> rows,
                       const roofline_roofs& roofs, double top, double left, double right) {
    if (rows.empty()) return 0;
    const double name_w = 36 * label_char_width, tx0 = left + name_w + 12, tx1 = right;
    s += fmt::format("<text class=\"heading\" x=\"{}\" y=\"{:.1f}\" font-size=\"14\" "
                     "font-weight=\"bold\">Kernels without FLOPs: throughput at each memory "
                     "level, % of its roof</text>\n",
                     left, top + 14);
    double y = top + 30;
    const double axis_y = y;
    for (int pct = 0; pct <= 100; pct += 25) {
        const double x = tx0 + (tx1 - tx0) * pct / 100.0;
        s += fmt::format("<text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" "
                         "text-anchor=\"middle\">{} %</text>\n",
                         x, axis_y, pct);
    }
    y += 8;
    const double grid_top = y;
    for (const roofline_point* p : rows) {
        const double r = std::min(bubble_radius(p->time_share), 14.0);
        const double h = std::max(18.0, 2 * r + 4), cy = y + h / 2;
        const std::array<std::pair<bound_unit, double>, 3> levels{
            {{bound_unit::dram, p->memory_pct},
             {bound_unit::l2, p->l2_pct},
             {bound_unit::l1, p->l1_pct}}};
        auto binds = levels[0];
        for (const auto& l : levels)
            if (l.second > binds.second) binds = l;
        const auto at = [&](double pct) {
            return tx0 + (tx1 - tx0) * std::clamp(pct, 0.0, 100.0) / 100;
        };
        s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
                         "stroke=\"#eee\"/>\n",
                         tx0, cy, tx1, cy);
        for (const auto& [unit, pct] : levels) {
            if (pct < 0 || unit == binds.first) continue;
            s += fmt::format("<circle class=\"level\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" "
                             "fill=\"white\" stroke=\"{}\" stroke-width=\"1.5\"><title>{} {:.0f} "
                             "%</title></circle>\n",
                             at(pct), cy, unit_colour(unit), to_string(unit), pct);
        }
        roofline_point shown = *p;
        shown.unit = binds.first;
        s += kernel_marker(shown, at(binds.second), cy, r);
        const std::string name = cut_middle(short_kernel_name(p->name), 36);
        s += fmt::format("<text class=\"label\" x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\">{}"
                         "</text>\n",
                         left, cy - label_line_height / 2 + label_ascent, xml_escape(name));
        const std::string facts =
            fmt::format("{} {:.0f} % · DRAM {:.2f} TB/s · {:.1f} % of time", to_string(binds.first),
                        binds.second, p->bytes_per_s / 1e12, 100 * p->time_share);
        s += fmt::format("<text class=\"label\" x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" "
                         "fill=\"{}\">{}</text>\n",
                         tx1 + 10, cy - label_line_height / 2 + label_ascent,
                         unit_colour(binds.first), xml_escape(facts));
        y += h;
    }
    s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" "
                     "stroke=\"#999\"/><line x1=\"{3:.1f}\" y1=\"{1:.1f}\" x2=\"{3:.1f}\" "
                     "y2=\"{2:.1f}\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>\n",
                     tx0, grid_top, y, tx1);
    s += fmt::format("<text class=\"note\" x=\"{}\" y=\"{:.1f}\" font-size=\"10\" fill=\"#555\">"
                     "100 % = the level's peak (DRAM {:.0f} GB/s); hollow rings: the other "
                     "levels measured; bubble: the level that binds</text>\n",
                     left, y + 16, roofs.dram_bytes_per_s / 1e9);
    return y + 24 - top;
}

} // namespace ktune::analysis::detail
