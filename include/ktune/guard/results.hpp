#pragma once
// The results file of `ktune bench` (schema ktune.results 1.x): per key the raw samples, never
// one number, and the environment fingerprint of the run, so a later `ktune diff` can test
// distributions and blame the machine where it changed.
//
//   auto r = ktune::guard::read_results("results.json");
//   ktune::guard::write_results(r, "copy.json");

#include "ktune/guard/series.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace ktune::guard {

inline constexpr const char* results_schema = "ktune.results";
inline constexpr const char* results_version = "1.0.0";

/// One suite entry's outcome.
struct result_entry {
    series data;
    std::string kind = "command"; ///< "command" or "op"
    std::string status = "ok";    ///< "ok", "unavailable" (needs a capability not built), "failed"
    std::string detail;           ///< why, when status is not ok
    /// Op entries: the config measured ("name=value,…") and where it came from ("default",
    /// "cache exact", "cache nearest", "explicit"); empty for commands.
    std::string config, config_source;
    /// Op entries: GPU clocks read right after the timing loop (under load, unlike the run's
    /// fingerprint) and the throttle reasons then; 0 = unknown.
    unsigned sm_clock_mhz = 0, memory_clock_mhz = 0;
    std::uint64_t throttle_reasons = 0;
    bool operator==(const result_entry&) const = default;
};

/// A cached winner that no longer wins when re-measured (see suite.hpp, bench_hooks).
struct stale_winner {
    std::string key;     ///< cache key, as the cache prints it
    std::string winner;  ///< the cached config
    std::string better;  ///< the config that now beats it
    double rel_gain = 0; ///< how much faster `better` is, 0.07 = 7 %
    bool operator==(const stale_winner&) const = default;
};

struct results {
    std::string suite;   ///< suite name
    std::string created; ///< UTC, ISO 8601
    std::string ktune_version;
    environment env;
    std::vector<result_entry> entries;
    std::vector<stale_winner> stale_winners;
    bool operator==(const results&) const = default;
};

/// Parses results JSON; `source` names the file in errors, which also give the JSON path
/// ("results.json: entries[3].samples[7]: not a finite number"). Unknown major → error.
results parse_results(const std::string& text, const std::string& source);
/// Why `samples` cannot be timings ("sample 3 is negative (-1.0)", "every sample is 0: ..."),
/// or "" when they can: finite, non-negative, not all zero.
std::string sample_problem(const std::vector<double>& samples);
results read_results(const std::string& path);
std::string results_to_json(const results& r); ///< pretty-printed, newline-terminated
/// Writes atomically (temporary file + rename), so CI never reads half a file.
void write_results(const results& r, const std::string& path);

/// The comparable part: entries with status ok.
series_set to_series_set(const results& r, const std::string& source);

} // namespace ktune::guard
