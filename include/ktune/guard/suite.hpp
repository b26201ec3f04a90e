#pragma once
// The pinned suite of `ktune bench` (schema ktune.suite 1.x): commands to time (any program —
// a benchmark binary, a training step) and registered ops × shapes, plus an optional cache
// whose winners are re-validated. Running it gives a results file (results.hpp).
//
//   {"schema": "ktune.suite", "version": "1.0.0", "name": "nightly",
//    "defaults": {"repeat": 30, "warmup": 2},
//    "commands": [{"name": "gemm-bench", "run": ["./gemm", "--n", "4096"]}],
//    "ops": [{"op": "softmax", "dtype": "f32", "shapes": [[4096, 4096]],
//             "config": ["cached", "default", {"block": 256, "vec": 4}]}],
//    "cache": "winners.json"}
//
//   auto s = ktune::guard::read_suite("suite.json");
//   ktune::guard::write_results(ktune::guard::run_suite(s, {}), "results.json");

#include "ktune/core/config.hpp"
#include "ktune/guard/results.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::guard {

/// A program timed from the outside: wall time of each run, start to exit.
struct command_entry {
    std::string name;
    std::vector<std::string> run; ///< argv; run[0] is looked up on PATH
    int repeat = 30;              ///< timed runs
    int warmup = 1;               ///< untimed runs first (page cache, JIT caches, clocks)
    double timeout_s = 600;       ///< per run; a run past it is killed and the entry fails
    bool operator==(const command_entry&) const = default;
};

/// Which config of an op an entry times: one result key each ("softmax/f32@cached 4096x4096").
struct op_config {
    /// "default": the op's hand-picked config; "cached": what a program using the cache would
    /// launch on this machine (exact key, else nearest bucket, else the default); "explicit".
    std::string kind = "default";
    config cfg; ///< the explicit config
    /// "default", "cached", or the explicit config's text: the part of the key after '@'.
    [[nodiscard]] std::string label() const;
    bool operator==(const op_config&) const = default;
};

/// A registered op timed on the GPU by the tuner's runtime, once per shape and config.
struct op_entry {
    std::string op;
    std::string dtype;
    std::vector<std::vector<std::int64_t>> shapes;
    std::vector<op_config> configs{op_config{}}; ///< "config": one or a list; default: default
    int repeat = 30;
    bool operator==(const op_entry&) const = default;
};

struct suite {
    std::string name;
    std::vector<command_entry> commands;
    std::vector<op_entry> ops;
    std::string cache; ///< winners to re-validate ("" = none)
    bool operator==(const suite&) const = default;
};

/// Parses a suite; errors name the file and JSON path. Relative cache paths stay as written.
suite parse_suite(const std::string& text, const std::string& source);
suite read_suite(const std::string& path);

/// One op measurement: per-launch samples and the fingerprint taken with them.
struct op_timing {
    std::vector<double> samples; ///< ns per launch, `repeat` of them
    std::string config;          ///< the config measured, "name=value,…"
    std::string config_source;   ///< "default", "cache exact", "cache nearest", "explicit"
    unsigned sm_clock_mhz = 0, memory_clock_mhz = 0; ///< right after the timing loop
    std::uint64_t throttle_reasons = 0;
    bool operator==(const op_timing&) const = default;
};

/// Capabilities that live in other modules, injected so guard does not depend on them: the op
/// runtime (op_runtime.hpp wires it) and cache re-validation.
/// Unset = not available (no GPU, or not in this build).
struct bench_hooks {
    std::function<op_timing(const op_entry& op, const std::vector<std::int64_t>& shape,
                            const op_config& cfg, int repeat)>
        time_op;
    /// Re-measures each cached winner against its runners-up; returns those that lost.
    std::function<std::vector<stale_winner>(const std::string& cache_path, int repeat)> revalidate;
};

struct bench_options {
    bench_hooks hooks;
    int repeat_override = 0;       ///< > 0: replaces every entry's repeat
    bool skip_unavailable = false; ///< record op entries without a runtime as "unavailable"
    /// Why hooks are unset, for the error and the entries' detail.
    std::string unavailable_reason = "this build has no op runtime";
    /// Called before each entry and run (progress display); may be empty.
    std::function<void(std::string_view entry, int run, int runs)> progress;
};

/// Runs every entry. Throws ktune::error(unsupported) for an op entry or a cache without the
/// capability (unless skip_unavailable), and ktune::error(input/timeout) when a command fails,
/// naming it, its exit status and the run. An op entry whose measurement throws (invalid
/// config, compile error, wrong result) is recorded with status "failed" and the reason.
results run_suite(const suite& s, const bench_options& options);

/// Times one command `repeat` times after `warmup` runs; seconds per run. Its stdout goes to
/// /dev/null (the gate's output stays readable); stderr stays attached.
std::vector<double> time_command(const command_entry& c,
                                 const std::function<void(int run, int runs)>& progress = {});

} // namespace ktune::guard
