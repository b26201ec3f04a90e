#pragma once
// Label placement for the roofline chart: each label goes to the first free spot among
// positions around its point (right, left, above, below, the diagonals), nearest first, then
// farther out with a leader line; a label that finds no free spot becomes a number beside its
// point and a row of a numbered legend. "Free" means inside the plot and clear of every label
// already placed and of the obstacles (legends). Boxes are estimated from the text length
// (`char_width` per character), the same estimate the overlap test uses on the SVG.
//
//   auto placed = place_labels(requests, plot_area, {legend_box}, 6.6, 13);
#include <span>
#include <string>
#include <vector>

namespace ktune::analysis::detail {

struct box {
    double x = 0, y = 0, w = 0, h = 0; ///< top-left corner, size (px)
    [[nodiscard]] bool overlaps(const box& o) const noexcept {
        return x < o.x + o.w && o.x < x + w && y < o.y + o.h && o.y < y + h;
    }
    [[nodiscard]] bool inside(const box& o) const noexcept {
        return x >= o.x && y >= o.y && x + w <= o.x + o.w && y + h <= o.y + o.h;
    }
};

struct label_request {
    double px = 0, py = 0, r = 0; ///< the point: centre and radius
    std::string text;
};

struct label_place {
    enum class kind { text, number, none } how = kind::none;
    box at;              ///< the text's box (label or number)
    bool leader = false; ///< drawn away from its point: a line joins them
    int number = 0;      ///< kind::number: its row in the numbered legend (1-based)
};

/// Places `requests` in order (most important first).
std::vector<label_place> place_labels(std::span<const label_request> requests, const box& area,
                                      std::vector<box> obstacles, double char_width,
                                      double line_height);

} // namespace ktune::analysis::detail
