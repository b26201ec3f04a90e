#pragma once
// The tuner's real evaluator: compiles candidates on the compile pool (one compile server per
// core) while one worker process per GPU checks and times the ones already compiled
// (tuner_loop.hpp drives it through candidate_evaluator).
#include "ktune/compile/compile.hpp"
#include "ktune/tune/tuner.hpp"
#include "ktune/worker/worker.hpp"
#include "tune/tune_target.hpp"
#include "tune/tuner_loop.hpp"

#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ktune::tune::detail {

/// The worker command for GPU `ordinal` (-1: CUDA's default device, the command unchanged):
/// run through /usr/bin/env with CUDA_VISIBLE_DEVICES naming that GPU alone (an ordinal of this
/// process's own CUDA_VISIBLE_DEVICES list when it has one).
std::vector<std::string> worker_command_for(const tune_request& rq, int ordinal);

/// The compile pool a tune (or every GPU of a plan) compiles on.
std::shared_ptr<compile::compile_pool> make_compile_pool(const tune_request& rq);

/// One worker of a runtime: the GPU it times on, and its process.
struct gpu_worker {
    int ordinal = -1; ///< -1: CUDA's default device
    std::unique_ptr<worker::worker_process> proc;
};

/// The processes a tune runs on: one measurement worker per GPU of rq.gpus (one on the default
/// device without), started first (the GPU context is the longest set-up), then the compile
/// pool, unless one is shared in. A tune_session keeps one between tunes.
struct runtime {
    explicit runtime(const tune_request& rq, std::shared_ptr<compile::compile_pool> shared = {});
    std::vector<gpu_worker> workers;
    std::shared_ptr<compile::compile_pool> pool;
    /// A worker killed by SIGKILL from outside (not by a timeout of ours) loses its GPU:
    /// measure() throws error{cuda} so a plan on several GPUs moves the tune elsewhere.
    bool lose_gpu_on_kill = false;
};

/// tune_op on `rt` (a session's or a plan GPU's runtime): the tune loop of tuner.cpp.
tune_report tune_on(const tune_request& rq, const tune_progress& progress, runtime* rt);

class process_evaluator final : public candidate_evaluator {
public:
    /// On `shared` (a session's runtime) or on a runtime of its own, started now;
    /// set_arch() before the first start().
    process_evaluator(const tune_request& rq, tune_target& t, runtime* shared = nullptr);
    void set_arch(std::string arch) { arch_ = std::move(arch); }
    /// Compiles the target's reference on the pool: into the shared cubin cache ahead (a
    /// built-in op's worker compiles it itself and finds it there), or, for a target that
    /// needs the result, waits and hands it over. Throws error{nvrtc} with the log when a
    /// needed reference does not compile.
    void compile_reference();
    /// Called with "baseline_compiled" when the first candidate's compile is done.
    std::function<void(const char*)> mark;
    /// Called by after_baseline (the tune checks the workers' GPUs and takes their marks).
    std::function<void(tune_report&)> on_baseline;

    [[nodiscard]] std::size_t batch_size() const override;
    std::unique_ptr<batch> start(std::vector<candidate_record> cands) override;
    void measure(batch& b, const std::function<void(candidate_record)>& done) override;
    /// Each candidate its own program, sent to a worker as soon as its compile is done.
    void stream(std::size_t window, std::unique_ptr<batch> first, const next_candidates& next,
                const std::function<void(candidate_record)>& done) override;
    std::vector<candidate_record> remeasure(const config& c,
                                            const measure::measure_policy& p) override;
    void after_baseline(tune_report& rep) override {
        if (on_baseline) on_baseline(rep);
    }
    void fill_stats(tune_report& rep) const override;

    /// The GPU each worker runs on (its first answer says), "" before that; in worker order.
    [[nodiscard]] const std::vector<std::string>& worker_devices() const noexcept {
        return worker_uuid_;
    }
    [[nodiscard]] const std::vector<gpu_worker>& workers() const noexcept { return rt_.workers; }
    /// The first worker's start-up milestones of this tune, "spawn" first (steady_clock ms since
    /// its epoch); empty when the worker was started by an earlier tune of the session.
    [[nodiscard]] const std::vector<std::pair<std::string, double>>& worker_marks() const noexcept {
        return worker_marks_;
    }

private:
    [[nodiscard]] compile::compile_request request(const config& c, injected_fault f) const;
    /// Waits for the compile; a record with compile_error, or the worker request in `out`.
    void compiled(candidate_record& rec, std::future<compile::compile_result>& fut,
                  measure::candidate_request& out);
    /// The oldest queued candidate of worker w's answer, into its record.
    void receive(candidate_record& rec, std::size_t w);
    /// Sends r to the worker with the fewest candidates in flight; returns that worker.
    std::size_t submit_to_least_busy(const measure::candidate_request& r);

    const tune_request& rq_;
    tune_target& target_;
    std::string arch_;
    std::unique_ptr<runtime> own_; // before rt_, which may refer to it
    runtime& rt_;
    int spawned_before_ = 0, servers_before_ = 0, failures_before_ = 0;
    std::uint64_t requests_ = 0;
    std::optional<measure::measure_policy> policy_override_;
    double compile_wait_s_ = 0;
    double worker_setup_s_ = 0;
    bool compiled_once_ = false;
    std::vector<std::pair<std::string, double>> worker_marks_;
    std::vector<std::string> worker_uuid_;
};

} // namespace ktune::tune::detail
