// Pooling runs of one side and loading them from files.
#include "ktune/guard/series.hpp"
#include "guard/trace_series.hpp"
#include "ktune/core/error.hpp"
#include "ktune/guard/results.hpp"

#include <map>

namespace ktune::guard {

series_set pool(const std::vector<series_set>& runs) {
    if (runs.empty()) throw error(error_kind::usage, "nothing to pool: no runs given");
    if (runs.size() == 1) return runs.front();
    series_set out;
    out.env = runs.front().env;
    out.every_key_expected = true;
    std::map<std::string, std::size_t> index; // key → position in out.items (keeps first order)
    std::vector<std::size_t> seen;            // runs that had each key
    for (const auto& run : runs) {
        out.source += (out.source.empty() ? "" : ", ") + run.source;
        out.notes.insert(out.notes.end(), run.notes.begin(), run.notes.end());
        out.broken.insert(out.broken.end(), run.broken.begin(), run.broken.end());
        out.every_key_expected = out.every_key_expected && run.every_key_expected;
        if (&run != &runs.front() && !(run.env == out.env)) {
            for (const auto& d : environment_differences(out.env, run.env))
                out.notes.push_back(run.source + " pooled with a different environment: " + d);
        }
        for (const auto& s : run.items) {
            auto [it, fresh] = index.try_emplace(s.key(), out.items.size());
            if (fresh) {
                out.items.push_back(s);
                seen.push_back(1);
                continue;
            }
            series& acc = out.items[it->second];
            if (acc.unit != s.unit)
                throw error(error_kind::input, run.source + ": key '" + s.key() + "' is in " +
                                                   s.unit + " but in " + acc.unit +
                                                   " in an earlier run; pool runs of one unit");
            std::size_t& n = seen[it->second];
            acc.samples.insert(acc.samples.end(), s.samples.begin(), s.samples.end());
            // Running means over the runs that have the key.
            acc.launches_per_run += (s.launches_per_run - acc.launches_per_run) / double(n + 1);
            acc.gpu_time_share += (s.gpu_time_share - acc.gpu_time_share) / double(n + 1);
            acc.runs += s.runs;
            ++n;
        }
    }
    return out;
}

series_set load_series(const std::vector<std::string>& paths, bool allow_incomplete) {
    if (paths.empty()) throw error(error_kind::usage, "no input files given");
    std::vector<series_set> runs;
    for (const auto& p : paths) {
        if (p.ends_with(".ktrace"))
            runs.push_back(detail::read_trace_series(p, allow_incomplete));
        else
            runs.push_back(to_series_set(read_results(p), p));
    }
    return pool(runs);
}

} // namespace ktune::guard
