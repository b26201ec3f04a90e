#pragma once
// The pinned suite of `ktune bench` (schema ktune.suite 1.x): commands to time (any program —
// a benchmark binary, a training step) and registered ops × shapes, plus an optional cache
// whose winners are re-validated. Running it gives a results file (results.hpp).
//
//   {"schema": "ktune.suite", "version": "1.0.0", "name": "nightly",
//    "defaults": {"repeat": 30, "warmup": 2},
//    "commands": [{"name": "gemm-bench", "run": ["./gemm", "--n", "4096"]}],
//    "ops": [{"op": "softmax", "dtype": "f32", "shapes": [[4096, 4096]]}],
//    "cache": "winners.json"}
//
//   auto s = ktune::guard::read_suite("suite.json");
//   ktune::guard::write_results(ktune::guard::run_suite(s, {}), "results.json");

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

/// A registered op timed on the GPU by the tuner's runtime, once per shape.
struct op_entry {
    std::string op;
    std::string dtype;
    std::vector<std::vector<std::int64_t>> shapes;
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

/// Capabilities that live in other modules, injected so guard does not depend on them: the op
/// runtime (tune/measure) and cache re-validation (cache). Unset = not available in this build.
struct bench_hooks {
    /// Timing samples (ns) of `op` at `shape`, `repeat` of them.
    std::function<std::vector<double>(const op_entry& op, const std::vector<std::int64_t>& shape,
                                      int repeat)>
        time_op;
    /// Re-measures each cached winner against its runners-up; returns those that lost.
    std::function<std::vector<stale_winner>(const std::string& cache_path)> revalidate;
};

struct bench_options {
    bench_hooks hooks;
    int repeat_override = 0;       ///< > 0: replaces every entry's repeat
    bool skip_unavailable = false; ///< record op entries without a runtime as "unavailable"
    /// Called before each entry and run (progress display); may be empty.
    std::function<void(std::string_view entry, int run, int runs)> progress;
};

/// Runs every entry. Throws ktune::error(unsupported) for an op entry or a cache without the
/// capability (unless skip_unavailable), and ktune::error(input/timeout) when a command fails,
/// naming it, its exit status and the run.
results run_suite(const suite& s, const bench_options& options);

/// Times one command `repeat` times after `warmup` runs; seconds per run. Its stdout goes to
/// /dev/null (the gate's output stays readable); stderr stays attached.
std::vector<double> time_command(const command_entry& c,
                                 const std::function<void(int run, int runs)>& progress = {});

} // namespace ktune::guard
