#pragma once
// `ktune tune gemm --plan FILE`: a ktune.tune_plan whose entries are all GEMMs, turned into the
// problems to tune (docs/formats.md#ktunetunegemm_plan).
//
//   auto tunes = ktune::gemm::plan_problems(ktune::tune::load_tune_plan("plan.json"), "tn",
//   "none"); for (const auto& t : tunes) ktune::gemm::tune(t.prob, {});

#include "ktune/gemm/problem.hpp"
#include "ktune/tune/tuner_plan.hpp"

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::gemm {

/// One GEMM of a plan. Zero budget / empty strategy: the command line's.
struct planned_problem {
    problem prob;
    std::size_t budget = 0;
    std::string strategy;
    bool operator==(const planned_problem&) const = default;
};

/// The plan's entries as GEMM problems, `layout` and `epilogue` applied to each. Throws
/// error(input) naming the entry (`plan.json: /tunes/3: …`) for an op other than "gemm" or a
/// shape, dtype or combination parse_problem refuses.
std::vector<planned_problem> plan_problems(std::span<const tune::plan_entry> entries,
                                           std::string_view layout, std::string_view epilogue);

} // namespace ktune::gemm
