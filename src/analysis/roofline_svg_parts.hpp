#pragma once
// Pieces shared by the roofline chart's panels (roofline_svg.cpp: the FLOP roofline;
// roofline_svg_bandwidth.cpp: the bandwidth view of kernels without FLOPs).
#include "ktune/analysis/roofline.hpp"

#include <string>
#include <string_view>

namespace ktune::analysis::detail {

/// Character width estimate at the labels' 11 px font (0.6 em: wider than most sans-serif
/// glyphs, so estimated boxes hold the rendered text); line box height.
inline constexpr double label_char_width = 6.6;
inline constexpr double label_line_height = 13;
/// A label's baseline sits this far below its box's top.
inline constexpr double label_ascent = 10;

/// "nvjet_sm90_tst_..." from a demangled name: no return type, namespaces or template/argument
/// lists; a work tag (" [w:1a2b]") kept.
std::string short_kernel_name(std::string_view name);

/// Colour of the unit that binds: each memory level and each compute unit its own.
std::string_view unit_colour(bound_unit u) noexcept;

/// Radius of a kernel's bubble: area proportional to its share of GPU time.
double bubble_radius(double time_share) noexcept;

/// The point's marker: filled in its binding unit's colour; latency-bound (nothing near a
/// roof) hollow and dashed, launch-bound grey.
std::string kernel_marker(const roofline_point& p, double cx, double cy, double r);

/// Fits `s` in `n` characters by cutting its middle.
std::string cut_middle(const std::string& s, std::size_t n);

} // namespace ktune::analysis::detail
