#pragma once
// The bandwidth view of the roofline chart (roofline_svg_bandwidth.cpp).
#include "ktune/analysis/roofline.hpp"

#include <span>
#include <string>

namespace ktune::analysis::detail {

/// Appends the panel for `rows` (kernels without FLOPs, largest share first) at `top`, between
/// x = `left` and the end of its tracks at `right`; returns its height (0 for no rows).
double bandwidth_panel(std::string& svg, std::span<const roofline_point* const> rows,
                       const roofline_roofs& roofs, double top, double left, double right);

} // namespace ktune::analysis::detail
