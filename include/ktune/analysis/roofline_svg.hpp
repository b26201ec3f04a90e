#pragma once
// A roofline chart as standalone SVG. Kernels with FLOPs on a log-log roofline (one ceiling per
// known compute roof, the DRAM slope, each ceiling's ridge); kernels without FLOPs in a
// bandwidth view below it (their throughput at each memory level as % of that level's roof).
// Each kernel's bubble area is its share of GPU time, its colour the unit that binds (DRAM, L2,
// L1/shared, pipe, issue; hollow when latency-bound), with a legend for both. Labels never
// overlap: they move away from their point (with a leader line) or become numbers listed below.
//
//   std::ofstream("roofline.svg") << ktune::analysis::render_roofline_svg(points, roofs);

#include "ktune/analysis/roofline.hpp"

#include <span>
#include <string>

namespace ktune::analysis {

struct svg_options {
    int width = 960;
    int height = 640; ///< of the FLOP roofline; the bandwidth view and legends add to it
    /// Label at most this many kernels of the FLOP chart (largest time shares, each name once);
    /// names that find no room become numbers in a legend below the chart.
    std::size_t max_labels = 40;
    std::string title; ///< default: "Roofline: <gpu>"
};

std::string render_roofline_svg(std::span<const roofline_point> points, const roofline_roofs& roofs,
                                const svg_options& options = {});

} // namespace ktune::analysis
