#pragma once
// A log-log roofline chart as standalone SVG: one ceiling per known compute roof, the DRAM
// slope, the ridge of each ceiling, and one point per kernel, its area proportional to its
// share of GPU time, coloured by class and labelled.
//
//   std::ofstream("roofline.svg") << ktune::analysis::render_roofline_svg(points, roofs);

#include "ktune/analysis/roofline.hpp"

#include <span>
#include <string>

namespace ktune::analysis {

struct svg_options {
    int width = 960;
    int height = 640;
    /// Label only the kernels with the largest time shares, each name once.
    std::size_t max_labels = 12;
    std::string title; ///< default: "Roofline: <gpu>"
};

std::string render_roofline_svg(std::span<const roofline_point> points, const roofline_roofs& roofs,
                                const svg_options& options = {});

} // namespace ktune::analysis
