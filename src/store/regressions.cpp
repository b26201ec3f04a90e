// regressions: stored reservoirs → guard series → guard::compare, overall and per environment.
#include "ktune/store/regressions.hpp"

#include "ktune/core/error.hpp"

#include <map>
#include <set>
#include <tuple>

namespace ktune::store {
namespace {

using env_key = std::pair<std::string, std::string>; // toolkit, driver

// One side as a guard series_set: per (kernel, launch) the pooled reservoir samples, launches
// per run and share of the side's GPU time.
guard::series_set to_series(const std::vector<stored_distribution>& ds, const std::string& source,
                            const env_key* only) {
    struct acc {
        guard::series s;
        std::set<std::string> runs;
        double total = 0;
        std::uint64_t count = 0;
    };
    std::map<std::pair<std::string, std::string>, acc> by_key;
    std::set<std::string> runs;
    double side_total = 0;
    for (const auto& d : ds) {
        if (only && env_key{d.toolkit, d.driver} != *only) continue;
        auto& a = by_key[{d.demangled, d.launch}];
        a.s.name = d.demangled;
        a.s.shape = d.launch;
        for (auto v : d.reservoir.values())
            a.s.samples.push_back(static_cast<double>(v));
        a.runs.insert(d.run_id);
        a.total += static_cast<double>(d.total_ns);
        a.count += d.count;
        runs.insert(d.run_id);
        side_total += static_cast<double>(d.total_ns);
    }
    guard::series_set set;
    set.source = source;
    for (auto& [k, a] : by_key) {
        a.s.runs = a.runs.size();
        a.s.launches_per_run = static_cast<double>(a.count) / static_cast<double>(runs.size());
        a.s.gpu_time_share = side_total > 0 ? a.total / side_total : 0;
        set.items.push_back(std::move(a.s));
    }
    return set;
}

} // namespace

int regressions_report::exit_code() const {
    bool judged = false;
    for (const auto& k : kernels) {
        if (k.overall.result == guard::verdict::slower && k.attributed_to == "code") return 1;
        if (k.overall.result != guard::verdict::inconclusive) judged = true;
    }
    return judged ? 0 : 2;
}

regressions_report regressions(profile_store& db, const regressions_options& o) {
    regressions_report r;
    r.db = db.describe();
    r.baseline = o.baseline;
    r.candidate = o.candidate;
    const auto base_runs = db.runs({.gpu = o.gpu, .build = o.baseline});
    const auto cand_runs = db.runs({.gpu = o.gpu, .build = o.candidate});
    for (const auto& [runs, build] :
         {std::pair{&base_runs, &o.baseline}, {&cand_runs, &o.candidate}})
        if (runs->empty())
            throw error(error_kind::not_found,
                        "no runs of build '" + *build + "' in " + r.db +
                            (o.gpu.empty() ? "" : " on " + o.gpu) +
                            ": `ktune ingest --build ID run.ktrace` stores some");
    std::map<env_key, environment_cell> cells;
    for (const auto& run : base_runs) {
        auto& c = cells[{run.toolkit, run.driver}];
        c.toolkit = run.toolkit, c.driver = run.driver, ++c.baseline_runs;
    }
    for (const auto& run : cand_runs) {
        auto& c = cells[{run.toolkit, run.driver}];
        c.toolkit = run.toolkit, c.driver = run.driver, ++c.candidate_runs;
    }
    for (const auto& [k, c] : cells)
        r.matrix.push_back(c);

    const auto base = db.distributions({.gpu = o.gpu, .build = o.baseline});
    const auto cand = db.distributions({.gpu = o.gpu, .build = o.candidate});
    auto overall = guard::compare(to_series(base, o.baseline, nullptr),
                                  to_series(cand, o.candidate, nullptr), o.diff);
    // Per shared environment: the same comparison with the environment held fixed.
    std::map<std::string, std::vector<cell_verdict>> by_key;
    bool env_differs = false;
    for (const auto& [k, c] : cells) {
        if (c.baseline_runs == 0 || c.candidate_runs == 0) {
            env_differs = true;
            continue;
        }
        const auto d = guard::compare(to_series(base, o.baseline, &k),
                                      to_series(cand, o.candidate, &k), o.diff);
        for (const auto& kd : d.keys)
            by_key[kd.key].push_back({k.first, k.second, kd.result, kd.rel});
    }
    if (env_differs)
        for (const auto& [k, c] : cells)
            if (c.baseline_runs == 0 || c.candidate_runs == 0)
                r.environment_differences.push_back(
                    "toolkit " + (c.toolkit.empty() ? "?" : c.toolkit) + " driver " +
                    (c.driver.empty() ? "?" : c.driver) + ": only " +
                    (c.baseline_runs ? "baseline" : "candidate") + " runs");
    for (auto& kd : overall.keys) {
        kernel_regression k;
        k.cells = by_key[kd.key];
        if (kd.result == guard::verdict::slower || kd.result == guard::verdict::faster) {
            bool inside = false;
            for (const auto& c : k.cells)
                inside = inside || c.result == kd.result;
            k.attributed_to = inside || !env_differs ? "code" : "environment";
        }
        k.overall = std::move(kd);
        r.kernels.push_back(std::move(k));
    }
    return r;
}

} // namespace ktune::store
