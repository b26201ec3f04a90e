// Pieces shared by the roofline chart's panels (see roofline_svg_parts.hpp).
#include "analysis/roofline_svg_parts.hpp"

#include "core/xml_escape.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ktune::analysis::detail {

using ::ktune::detail::xml_escape;

std::string short_kernel_name(std::string_view full) {
    // "(anonymous namespace)::" would read as an argument list below.
    std::string cleaned(full);
    for (auto at = cleaned.find("(anonymous namespace)::"); at != std::string::npos;
         at = cleaned.find("(anonymous namespace)::"))
        cleaned.erase(at, 23);
    std::string_view name = cleaned;
    // A work tag from `ktune roofline` (samples of one kernel told apart by work) is kept.
    std::string tag;
    if (const auto w = name.rfind(" [w:"); w != std::string_view::npos && name.ends_with("]")) {
        tag = std::string(name.substr(w));
        name = name.substr(0, w);
    }
    // Template arguments make kernel names unreadable in a chart; keep the head.
    if (const auto lt = name.find('<'); lt != std::string_view::npos && lt > 0)
        name = name.substr(0, lt);
    if (const auto paren = name.find('('); paren != std::string_view::npos && paren > 0)
        name = name.substr(0, paren);
    // Drop the return type and namespaces: "void at::native::foo" -> "foo".
    if (const auto sp = name.rfind(' '); sp != std::string_view::npos) name = name.substr(sp + 1);
    if (const auto ns = name.rfind("::"); ns != std::string_view::npos) name = name.substr(ns + 2);
    if (name.empty()) return std::string(full);
    return std::string(name) + tag;
}

std::string cut_middle(const std::string& s, std::size_t n) {
    if (s.size() <= n || n < 8) return s;
    const std::size_t tail = (n - 3) / 3, head = n - 3 - tail;
    return s.substr(0, head) + "..." + s.substr(s.size() - tail);
}

std::string_view unit_colour(bound_unit u) noexcept {
    switch (u) {
    case bound_unit::dram:
        return "#1f77b4"; // blue
    case bound_unit::l2:
        return "#17becf"; // teal
    case bound_unit::l1:
        return "#9467bd"; // purple
    case bound_unit::pipe:
        return "#d62728"; // red
    case bound_unit::issue:
        return "#e377c2"; // pink
    }
    return "#000";
}

double bubble_radius(double time_share) noexcept {
    return 3 + 22 * std::sqrt(std::clamp(time_share, 0.0, 1.0));
}

std::string kernel_marker(const roofline_point& p, double cx, double cy, double r) {
    const bool launch = p.cls == bound_class::launch, latency = p.cls == bound_class::latency;
    const std::string_view colour = launch ? std::string_view("#7f7f7f") : unit_colour(p.unit);
    return fmt::format("<circle class=\"kernel\" data-kernel=\"{}\" data-intensity=\"{:g}\" "
                       "data-share=\"{:.4f}\" data-bound-by=\"{}\" cx=\"{:.1f}\" cy=\"{:.1f}\" "
                       "r=\"{:.1f}\" fill=\"{}\" fill-opacity=\"{}\" stroke=\"{}\"{}><title>{}: "
                       "{}-bound, {} ({:.1f} % of time)</title></circle>\n",
                       xml_escape(p.name), p.intensity, p.time_share, to_string(p.unit), cx, cy, r,
                       colour, latency ? "0.1" : "0.55", colour,
                       latency ? " stroke-dasharray=\"3 2\"" : "", xml_escape(p.name),
                       to_string(p.cls), to_string(p.unit), 100 * p.time_share);
}

} // namespace ktune::analysis::detail
