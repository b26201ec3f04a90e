// Greedy label placement (see svg_labels.hpp). Greedy by importance is enough here: the
// biggest kernels are placed first and keep the best spots; crowded small ones fall back to
// numbers, which is what a reader of a crowded chart needs anyway.
#include "analysis/svg_labels.hpp"

#include <array>
#include <string>

namespace ktune::analysis::detail {
namespace {

// The box of `w` x `h` text in direction (dx, dy) from a point of radius r, `gap` px out.
box candidate(const label_request& q, double w, double h, int dx, int dy, double gap) {
    const double off = q.r + 3 + gap;
    double x = q.px - w / 2, y = q.py - h / 2;
    if (dx > 0) x = q.px + off;
    if (dx < 0) x = q.px - off - w;
    if (dy > 0) y = q.py + off;
    if (dy < 0) y = q.py - off - h;
    return {x, y, w, h};
}

bool free_spot(const box& b, const box& area, const std::vector<box>& taken) {
    if (!b.inside(area)) return false;
    for (const auto& t : taken)
        if (b.overlaps(t)) return false;
    return true;
}

// Right, left, above, below, then the diagonals; nearest first, then farther out.
constexpr std::array<std::array<int, 2>, 8> directions{
    {{1, 0}, {-1, 0}, {0, -1}, {0, 1}, {1, -1}, {-1, -1}, {1, 1}, {-1, 1}}};
constexpr std::array<double, 4> gaps{0, 12, 26, 44};

} // namespace

std::vector<label_place> place_labels(std::span<const label_request> requests, const box& area,
                                      std::vector<box> obstacles, double char_width,
                                      double line_height) {
    std::vector<label_place> out(requests.size());
    auto& taken = obstacles; // labels placed so far join the obstacles
    int numbered = 0;
    for (std::size_t i = 0; i < requests.size(); ++i) {
        const auto& q = requests[i];
        const double w = char_width * double(q.text.size());
        bool done = false;
        for (const double gap : gaps) {
            for (const auto& [dx, dy] : directions) {
                const box b = candidate(q, w, line_height, dx, dy, gap);
                if (!free_spot(b, area, taken)) continue;
                out[i] = {label_place::kind::text, b, gap > 0, 0};
                taken.push_back(b);
                done = true;
                break;
            }
            if (done) break;
        }
        if (done) continue;
        // No room for the name: a number beside the point, the name in the legend.
        out[i].how = label_place::kind::none;
        out[i].number = ++numbered;
        const double nw = char_width * double(std::to_string(numbered).size());
        for (const double gap : {0.0, 8.0, 18.0, 30.0, 44.0, 60.0}) {
            for (const auto& [dx, dy] : directions) {
                const box b = candidate(q, nw, line_height, dx, dy, gap);
                if (!free_spot(b, area, taken)) continue;
                out[i].how = label_place::kind::number;
                out[i].at = b;
                out[i].leader = gap > 0;
                taken.push_back(b);
                done = true;
                break;
            }
            if (done) break;
        }
    }
    return out;
}

} // namespace ktune::analysis::detail
