// backlog: the ranking comes from the indexed aggregate table (profile_store::kernel_totals);
// only the rows shown read their sketches, merged into fleet quantiles.
#include "ktune/store/backlog.hpp"

#include <set>
#include <unordered_map>

namespace ktune::store {

backlog_report backlog(profile_store& db, const backlog_options& options) {
    backlog_report r;
    r.db = db.describe();
    r.filter = options.filter;
    const auto runs = db.runs(options.filter);
    r.runs = runs.size();
    std::unordered_map<std::string, const run_info*> run_by_id;
    for (const auto& run : runs) {
        r.total_ns += run.total_ns;
        r.kernels += run.kernels;
        run_by_id.emplace(run.id, &run);
    }
    for (auto& k : db.kernel_totals(options.filter, options.limit)) {
        backlog_row row;
        row.kernel = k.demangled;
        row.mangled = k.mangled;
        row.count = k.count;
        row.total_ns = k.total_ns;
        row.runs = k.runs;
        row.share =
            r.total_ns > 0 ? static_cast<double>(k.total_ns) / static_cast<double>(r.total_ns) : 0;
        row.bound = k.bound;
        row.pct_of_roof = k.pct_of_roof;
        row.lever = k.lever;
        if (k.pct_of_roof >= 0)
            row.savable_ns =
                std::max(0.0, 1 - k.pct_of_roof / 100) * static_cast<double>(k.total_ns);
        quantile_sketch fleet;
        std::set<std::string> commands;
        for (const auto& d : db.distributions(options.filter, k.name_id)) {
            fleet.merge(d.sketch);
            if (auto it = run_by_id.find(d.run_id); it != run_by_id.end())
                commands.insert(it->second->command);
        }
        row.p50_ns = fleet.quantile(0.50);
        row.p95_ns = fleet.quantile(0.95);
        row.p99_ns = fleet.quantile(0.99);
        row.tune = match_tunable(row.kernel, {commands.begin(), commands.end()});
        r.rows.push_back(std::move(row));
    }
    return r;
}

} // namespace ktune::store
