#pragma once
// Recorded tuning spaces: every valid config of a kernel compiled and timed once on one GPU
// (Kernel Tuner cache JSON, plain or gzip, and the T4 format). Replaying one turns "measure
// this config" into a table lookup, so strategies are compared on a CPU, deterministically.
//
// The space keeps the recording's axes (its full parameter lists), so strategies move through
// the real Cartesian product; the recorded configs are its valid set (the recording enumerated
// every config its restrictions allow), and recorded failures come back as failures.
//
//   auto rec = ktune::tune::load_recorded_space("examples/data/spaces/gemm_RTX_3090.json.gz");
//   auto run = ktune::tune::replay_search(rec, {.strategy = "auto", .budget = 200, .seed = 1});

#include "ktune/tune/searcher.hpp"
#include "ktune/tune/space.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ktune::tune {

struct recorded_config {
    point where;
    eval_status status = eval_status::ok;
    double time = 0;             ///< ms; meaningful when ok
    std::vector<double> samples; ///< "times" when recorded
    double compile_s = 0;        ///< recorded compile time
    double benchmark_s = 0;      ///< recorded benchmark (+ verification) time
    bool operator==(const recorded_config&) const = default;
};

struct recorded_space {
    std::string source;                   ///< file path
    std::string format;                   ///< "kernel_tuner" or "t4"
    std::string kernel;                   ///< kernel name when recorded
    std::string device;                   ///< GPU name when recorded
    tune::space space;                    ///< axes of the recording, restricted to its configs
    std::vector<recorded_config> configs; ///< sorted by space.code(where)

    [[nodiscard]] const recorded_config* find(const point& p) const;
    /// Fastest ok time (the optimum); throws input when nothing succeeded.
    [[nodiscard]] double optimum() const;
    [[nodiscard]] std::size_t ok_count() const;
    /// Ok configs with time ≤ factor × optimum.
    [[nodiscard]] std::size_t count_within(double factor) const;
    /// "Measuring": the recorded outcome (invalid for a config the recording lacks).
    [[nodiscard]] observation evaluate(const point& p, bool charge_compile_time = true) const;
};

/// Reads a Kernel Tuner cache (.json / .json.gz) or a T4 file, detected from the content.
/// Malformed input throws input naming the file and the JSON path of what is wrong.
recorded_space load_recorded_space(const std::string& path);

struct replay_options {
    std::string strategy = "auto";
    std::size_t budget = 0; ///< 0: min(valid configs, 1000)
    std::uint64_t seed = 0;
    double target = 1.05; ///< "found" = a config within target × optimum
    bool charge_compile_time = true;
    /// End each run at its first config within target (benchmarks that only count evaluations
    /// to target: the rest of the budget would change nothing they report but best_time).
    bool stop_at_target = false;
    /// Configs per proposal (0: the strategy's own batch, as before). A live tune of a user
    /// kernel or built-in op proposes 2 x its compile threads at a time and, compiling ahead,
    /// proposes each batch before the one before it is measured (docs/perf/search.md#live-batches):
    /// `batch` and `compile_ahead` replay that.
    std::size_t batch = 0;
    bool compile_ahead = false;
    /// A live tune's stream (tune_request::stream): `batch` configs in flight, results in the
    /// order proposed, one config proposed per result (docs/perf/search.md#streaming).
    bool stream = false;
    bool operator==(const replay_options&) const = default;
};

struct replay_run {
    std::uint64_t seed = 0;
    std::optional<std::size_t> evals_to_target; ///< 1-based; nullopt: not reached in budget
    std::size_t evaluations = 0;
    std::size_t failures = 0;
    double best_time = 0; ///< 0 when nothing succeeded
    point best;           ///< tie-aware winner (selection.hpp)
    std::size_t tied = 0; ///< configs tied with the winner
    double tuning_s = 0;  ///< charged compile + benchmark time of the run
    double tuning_s_to_target = 0;
    bool operator==(const replay_run&) const = default;
};

/// One seeded search over the recording.
replay_run replay_search(const recorded_space& rec, const replay_options& o);

struct quartiles {
    double q1 = 0, median = 0, q3 = 0;
    bool operator==(const quartiles&) const = default;
};
/// Type-7 (linear) quartiles of non-empty v.
quartiles quartiles_of(std::vector<double> v);

/// Random search's evaluations to its first hit when it draws without replacement from m
/// configs of which k are good (failed configs are drawn too, so m counts them): the mean
/// (m+1)/(k+1) over an unlimited budget, and the exact median when a miss within `budget`
/// counts as budget + 1 (the convention of replay_summary::evals). k = 0: both are budget + 1.
struct random_baseline {
    double mean = 0;
    double median = 0;
    bool operator==(const random_baseline&) const = default;
};
random_baseline random_first_hit(std::size_t m, std::size_t k, std::size_t budget);

/// The budget a replay runs with: o.budget, or min(configs of the recording, 1000) when 0.
std::size_t replay_budget(const recorded_space& rec, const replay_options& o);

struct replay_summary {
    std::size_t recorded = 0; ///< M: configs random search can draw, recorded failures included
    std::size_t valid = 0;    ///< N: ok configs of the recording
    std::size_t within = 0;   ///< K: ok configs within target × optimum
    std::size_t budget = 0;   ///< evaluations per run (replay_budget)
    /// Random search's baseline on this recording: mean (M+1)/(K+1) and median at the budget.
    random_baseline random;
    std::size_t reached = 0; ///< runs that reached the target
    /// Evaluations to target over the runs; runs that missed count as budget + 1 (so a median
    /// over half the runs missing is reported as "not reached").
    quartiles evals;
    quartiles best_ratio; ///< best found / optimum
    bool operator==(const replay_summary&) const = default;
};
replay_summary summarize(const recorded_space& rec, const replay_options& o,
                         const std::vector<replay_run>& runs);

/// The `--json` report of a replay (schema ktune.tune.replay, docs/formats.md): the recording,
/// the options, the summary with both random baselines and the ratios to them, every run.
std::string replay_report_json(const recorded_space& rec, const replay_options& o,
                               const std::vector<replay_run>& runs);

/// R runs with seeds derived from o.seed (rng::derive), on up to `threads` threads; the result
/// does not depend on the thread count. progress(done, total) is called from one thread.
std::vector<replay_run>
replay_repeat(const recorded_space& rec, const replay_options& o, std::size_t repeats,
              unsigned threads = 1,
              const std::function<void(std::size_t, std::size_t)>& progress = {});

} // namespace ktune::tune
