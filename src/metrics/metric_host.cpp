#include "ktune/metrics/metric_host.hpp"

#include "core/check_private.hpp"
#include "host_object.hpp"
#include "ktune/core/error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>

namespace ktune::metrics {
namespace {

struct arch_chip {
    std::string_view arch;
    std::string_view chip;
};
// The datacenter chip of each compute capability; consumer parts (GA102, AD104, GB202, …) share
// the arch but not every metric, so they must be named explicitly.
constexpr std::array<arch_chip, 7> k_arch_chips{{{"sm_70", "GV100"},
                                                 {"sm_75", "TU102"},
                                                 {"sm_80", "GA100"},
                                                 {"sm_86", "GA102"},
                                                 {"sm_89", "AD102"},
                                                 {"sm_90", "GH100"},
                                                 {"sm_100", "GB100"}}};

void require_known_chip(std::string_view chip) {
    const auto chips = supported_chips();
    if (std::ranges::find(chips, chip) == chips.end())
        throw error(error_kind::not_found,
                    fmt::format("unknown chip '{}': CUPTI knows {}", chip, fmt::join(chips, ", ")));
}

[[noreturn]] void throw_over_budget(const metric_set& s, std::size_t max_passes) {
    throw error(error_kind::unsupported,
                fmt::format("metric set '{}' needs {} replay passes per kernel on {}, more than "
                            "the budget of {}: every pass replays the kernel. Drop metrics or "
                            "raise the pass budget",
                            s.name, s.passes, s.chip, max_passes));
}

} // namespace

std::vector<std::string> supported_chips() {
    detail::require_profiler_host_usable();
    CUpti_Profiler_Host_GetSupportedChips_Params p{};
    p.structSize = CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE;
    KTUNE_CUPTI_CALL(cuptiProfilerHostGetSupportedChips(&p));
    return {p.ppChipNames, p.ppChipNames + p.numChips};
}

std::optional<std::string> default_chip_for_arch(std::string_view arch) noexcept {
    for (const auto& e : k_arch_chips)
        if (e.arch == arch) return std::string(e.chip);
    return std::nullopt;
}

bool is_valid_metric(std::string_view chip, std::string_view metric) {
    const std::string name(metric);
    detail::host_object scratch(chip);
    return scratch.try_add(std::span(&name, 1));
}

std::size_t count_passes(std::string_view chip, std::span<const std::string> metrics) {
    detail::host_object h(chip);
    h.add(metrics);
    auto image = h.config_image();
    return detail::passes_of(image);
}

namespace {

metric_set resolve_required(const metric_set_spec& spec, std::string_view chip,
                            std::size_t max_passes) {
    metric_set out{spec.name, std::string(chip), {}, {}, 0};
    std::vector<std::string> invalid;
    // Fast path: when every first candidate is valid, one host object checks them all. Only a
    // failure needs the one-name-per-object checks below (a failed add poisons the object).
    std::vector<std::string> firsts;
    for (const auto& req : spec.requests)
        if (!req.candidates.empty() &&
            std::ranges::find(firsts, req.candidates.front()) == firsts.end())
            firsts.push_back(req.candidates.front());
    if (detail::host_object all(chip); all.try_add(firsts)) {
        out.metrics = std::move(firsts);
        auto image = all.config_image();
        out.passes = detail::passes_of(image);
        if (out.passes > max_passes) throw_over_budget(out, max_passes);
        return out;
    }
    for (const auto& req : spec.requests) {
        const auto hit = std::ranges::find_if(
            req.candidates, [&](const std::string& c) { return is_valid_metric(chip, c); });
        if (hit != req.candidates.end()) {
            if (std::ranges::find(out.metrics, *hit) == out.metrics.end())
                out.metrics.push_back(*hit);
        } else if (req.required) {
            invalid.push_back(fmt::format("{}", fmt::join(req.candidates, " | ")));
        } else if (!req.candidates.empty()) {
            out.dropped.push_back(req.candidates.front());
        }
    }
    if (!invalid.empty())
        throw error(error_kind::input,
                    fmt::format("metric set '{}': not a range-profiler metric on {}: {}. Use full "
                                "names with a rollup (e.g. dram__bytes.sum, "
                                "sm__throughput.avg.pct_of_peak_sustained_elapsed); launch__* "
                                "values come from the trace, not the range profiler",
                                spec.name, chip, fmt::join(invalid, ", ")));
    out.passes = count_passes(chip, out.metrics);
    if (out.passes > max_passes) throw_over_budget(out, max_passes);
    return out;
}

} // namespace

metric_set resolve_metric_set(const metric_set_spec& spec, std::string_view chip,
                              std::size_t max_passes) {
    require_known_chip(chip);
    metric_set_spec core{spec.name, {}};
    std::vector<const metric_request*> extras;
    for (const auto& req : spec.requests)
        if (req.if_fits)
            extras.push_back(&req);
        else
            core.requests.push_back(req);
    metric_set out = resolve_required(core, chip, max_passes);
    // Greedy: each extra is kept when the set with it still fits. One host object per try
    // (a failed add poisons the object), so an unknown name costs no more than a known one.
    for (const auto* req : extras)
        for (const auto& c : req->candidates) {
            if (std::ranges::find(out.metrics, c) != out.metrics.end()) break;
            auto trial = out.metrics;
            trial.push_back(c);
            detail::host_object h(chip);
            if (!h.try_add(trial)) continue; // not a metric on this chip: next candidate
            auto image = h.config_image();
            if (const auto passes = detail::passes_of(image); passes <= max_passes) {
                out.metrics = std::move(trial);
                out.passes = passes;
            }
            break;
        }
    return out;
}

} // namespace ktune::metrics
