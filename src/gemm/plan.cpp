// A ktune.tune_plan of GEMMs as problems (include/ktune/gemm/plan.hpp).
#include "ktune/gemm/plan.hpp"

#include "ktune/core/error.hpp"

#include <fmt/format.h>

namespace ktune::gemm {

std::vector<planned_problem> plan_problems(std::span<const tune::plan_entry> entries,
                                           std::string_view layout, std::string_view epilogue) {
    std::vector<planned_problem> out;
    for (const auto& e : entries) {
        if (e.op != "gemm")
            throw error(error_kind::input,
                        fmt::format("{}: op '{}': a `ktune tune gemm --plan` file holds only "
                                    "\"op\": \"gemm\" entries",
                                    e.where, e.op));
        try {
            out.push_back(
                {parse_problem(e.shape, e.dtype, layout, epilogue), e.budget, e.strategy});
        } catch (const error& err) {
            throw error(error_kind::input, fmt::format("{}: {}", e.where, err.what()));
        }
    }
    return out;
}

} // namespace ktune::gemm
