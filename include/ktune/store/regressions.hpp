#pragma once
// Regressions across builds from the store: the guard's statistics (Mann–Whitney U,
// Hodges–Lehmann shift with a bootstrap CI, Benjamini–Hochberg; guard/compare.hpp) on the
// stored duration reservoirs, per (kernel, launch configuration), once over all runs and once
// per (toolkit, driver) cell present on both sides, so a slowdown that only shows where the
// environment changed is blamed on the environment, not the code.
//
//   auto db = ktune::store::open_store("sqlite:k.db");
//   auto r = ktune::store::regressions(db, {.baseline = "v1", .candidate = "v2"});
//   return r.exit_code();

#include "ktune/guard/compare.hpp"
#include "ktune/store/store.hpp"

#include <string>
#include <vector>

namespace ktune::store {

struct regressions_options {
    std::string baseline{};  ///< build id
    std::string candidate{}; ///< build id
    std::string gpu{};       ///< only runs on this GPU ("" = all)
    guard::diff_options diff{};
};

/// One (toolkit, driver) environment and how many runs each side has in it.
struct environment_cell {
    std::string toolkit, driver;
    std::size_t baseline_runs = 0, candidate_runs = 0;
    bool operator==(const environment_cell&) const = default;
};

struct cell_verdict {
    std::string toolkit, driver;
    guard::verdict result = guard::verdict::inconclusive;
    double rel = 0;
};

struct kernel_regression {
    guard::key_diff overall;         ///< all runs of each build pooled
    std::vector<cell_verdict> cells; ///< the same key within each shared environment
    /// "code": slower (faster) inside a shared environment too; "environment": the change
    /// shows only across environments; "" when the overall verdict is same or inconclusive.
    std::string attributed_to;
};

struct regressions_report {
    std::string db, baseline, candidate;
    std::vector<environment_cell> matrix;
    std::vector<std::string> environment_differences; ///< when the builds' runs differ
    std::vector<kernel_regression> kernels;           ///< guard order: slower first
    /// 1 when a kernel is slower and not explained by the environment; 2 when nothing was
    /// comparable; else 0.
    [[nodiscard]] int exit_code() const;
};

/// Throws error{not_found} when either build has no runs in the store.
regressions_report regressions(profile_store& db, const regressions_options& options);
/// Schema ktune.regressions (docs/formats.md#ktuneregressions).
std::string regressions_json(const regressions_report& report);
std::string format_regressions(const regressions_report& report);

} // namespace ktune::store
