#pragma once
// One interface for every search strategy. A searcher proposes configs in batches, observes
// what happened to each (a time, or why it failed), and is done when its budget is spent or
// the space is exhausted. It never sees the GPU: the same strategy runs against a real tuner
// (compile + measure) or against a recorded space (replay), deterministically for a seed.
//
//   auto s = ktune::tune::make_searcher("auto");
//   s->init(space, {.budget = 200, .seed = 7});
//   while (!s->done()) {
//       std::vector<point> batch = s->propose();        // compile these (e.g. in parallel)
//       std::vector<observation> results = measure(batch);
//       s->observe(results);
//   }
//   auto best = ktune::tune::select_best(s->history());  // selection.hpp: tie-aware

#include "ktune/core/rng.hpp"
#include "ktune/tune/space.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace ktune::tune {

/// What became of one evaluated config. Everything but ok is a failure the search goes on from.
enum class eval_status : std::uint8_t {
    ok,
    compile_error,  ///< NVRTC (or the recording) says it does not compile
    launch_error,   ///< launch failed (too many resources at run time, illegal access, …)
    wrong_result,   ///< ran, but failed the reference check
    timeout,        ///< took longer than the tuner's limit
    resource_limit, ///< rejected before launch: registers / shared memory over the device limit
    invalid,        ///< not a valid config (absent from a recording, broken constraint)
};

/// "ok", "compile_error", …; from_string throws input naming the accepted names.
std::string_view to_string(eval_status s) noexcept;
eval_status eval_status_from_string(std::string_view s);

/// The result of evaluating one config.
struct observation {
    point where;
    eval_status status = eval_status::ok;
    double time = 0;             ///< objective, lower is better (ms); meaningful when ok
    std::vector<double> samples; ///< per-repetition times when known: enables tie detection
    double cost_s = 0;           ///< tuning time this evaluation took (compile + benchmark)

    [[nodiscard]] bool ok() const noexcept { return status == eval_status::ok; }
    bool operator==(const observation&) const = default;
};

struct search_options {
    std::size_t budget = 100; ///< evaluations (observed configs, failures included)
    std::uint64_t seed = 0;
    std::size_t batch = 0; ///< configs per propose(); 0: the strategy's own choice
    bool operator==(const search_options&) const = default;
};

/// Base of every strategy: budget accounting, the history, never proposing a config twice.
class searcher {
public:
    virtual ~searcher() = default;
    searcher() = default;
    searcher(const searcher&) = delete;
    searcher& operator=(const searcher&) = delete;

    [[nodiscard]] virtual std::string_view name() const noexcept = 0;

    /// Starts a search; a searcher can be re-initialised for another run.
    void init(const space& s, const search_options& o);
    /// Up to `max` (0: the batch size) new valid configs, never one proposed before, never more
    /// than the budget left. Empty only when done().
    std::vector<point> propose(std::size_t max = 0);
    /// Results of proposed configs, in any order and any grouping.
    void observe(const std::vector<observation>& results);
    /// Budget spent, or the strategy has nothing left to propose.
    [[nodiscard]] bool done() const noexcept;

    [[nodiscard]] std::size_t evaluations() const noexcept { return history_.size(); }
    [[nodiscard]] const std::vector<observation>& history() const noexcept { return history_; }
    /// Fastest ok observation so far (index into history()); nullopt before one.
    [[nodiscard]] std::optional<std::size_t> best_index() const noexcept { return best_; }
    [[nodiscard]] const search_options& options() const noexcept { return options_; }
    [[nodiscard]] const space& search_space() const noexcept { return space_; }
    /// The most configs a live tune proposes at a time (it proposes 2 x its compile threads, and
    /// compiling ahead, before the previous batch's results): 8 for a strategy that learns from
    /// its results, which larger, later-seen batches cost evaluations (dev corpus, auto: 32 at a
    /// time 1.9x the evaluations of one at a time, 8 at a time 1.3x;
    /// docs/perf/search.md#live-batches); no limit for one whose proposals ignore them.
    [[nodiscard]] virtual std::size_t live_batch_cap() const noexcept { return 8; }

protected:
    virtual void on_init() {}
    /// Append up to n candidates to out. Duplicates and invalid points are dropped by the base;
    /// appending nothing new means the strategy is exhausted.
    virtual void do_propose(std::size_t n, std::vector<point>& out) = 0;
    virtual void on_observe(const observation& /*o*/) {}
    [[nodiscard]] virtual std::size_t default_batch() const noexcept { return 1; }

    [[nodiscard]] bool proposed(const point& p) const { return seen_.count(space_.code(p)) != 0; }
    [[nodiscard]] rng& random() noexcept { return rng_; }

private:
    space space_;
    search_options options_;
    rng rng_;
    std::vector<observation> history_;
    std::unordered_set<std::uint64_t> seen_;
    std::size_t proposed_ = 0;
    std::optional<std::size_t> best_;
    bool exhausted_ = false;
};

/// Creates a registered strategy; throws not_found listing the names.
std::unique_ptr<searcher> make_searcher(std::string_view name);

struct strategy_info {
    std::string name;
    std::string description;
};
/// Every registered strategy, sorted by name ("model" only when built with XGBoost).
std::vector<strategy_info> strategies();

/// Adds a strategy (e.g. from an application); a duplicate name throws usage.
void register_searcher(strategy_info info, std::function<std::unique_ptr<searcher>()> factory);

/// Evaluates a batch: one observation per point, same order.
using evaluate_fn = std::function<std::vector<observation>(const std::vector<point>&)>;
/// Called after every observed batch (progress display).
using progress_fn = std::function<void(const searcher&)>;

/// The whole loop: init, then propose → evaluate → observe until done. Returns the history.
const std::vector<observation>& run_search(searcher& s, const space& sp, const search_options& o,
                                           const evaluate_fn& evaluate,
                                           const progress_fn& progress = {});

} // namespace ktune::tune
