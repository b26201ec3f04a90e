#pragma once
// The tuner's evaluator: compiles candidates on the compile pool (one compile server per core)
// while the worker process checks and times the ones already compiled (tuner.cpp drives it).
#include "ktune/compile/compile.hpp"
#include "ktune/tune/tuner.hpp"
#include "ktune/worker/worker.hpp"

#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ktune::tune::detail {

/// The processes a tune runs on: the measurement worker, started first (its GPU context is the
/// longest set-up), then the compile pool. A tune_session keeps one between tunes.
struct runtime {
    explicit runtime(const tune_request& rq);
    worker::worker_process worker;
    compile::compile_pool pool;
};

class evaluator {
public:
    /// On `shared` (a session's runtime) or on a runtime of its own, started now;
    /// set_arch() before the first submit.
    evaluator(const tune_request& rq, const ops::op& o, runtime* shared = nullptr);
    void set_arch(std::string arch) { arch_ = std::move(arch); }
    /// Compiles a kernel the worker will compile for itself (the op's reference) into the
    /// shared cubin cache ahead, so the worker finds it there.
    void precompile(const std::string& source);

    [[nodiscard]] compile::compile_request request(const config& c, injected_fault f) const;
    std::future<compile::compile_result> submit(const config& c, injected_fault f);
    /// Compiles in programs of `per_program` candidates (one NVRTC program each).
    std::vector<std::future<compile::compile_result>>
    submit_all(const std::vector<config>& cs, const std::vector<injected_fault>& fs,
               std::size_t per_program);

    /// Waits for the compile; a record with compile_error, or the worker request in `out`.
    candidate_record compiled(const config& c, injected_fault f,
                              std::future<compile::compile_result>& fut,
                              measure::candidate_request& out);
    /// Queues a compiled candidate behind the ones in flight (the worker never waits for us).
    void send(const measure::candidate_request& r) { rt_.worker.submit(r); }
    /// The oldest queued candidate's answer, into its record.
    void receive(candidate_record& rec);
    [[nodiscard]] std::size_t in_flight() const noexcept { return rt_.worker.in_flight(); }

    /// Compile (already submitted), check and time one candidate, waiting for its answer.
    candidate_record finish(const config& c, injected_fault f,
                            std::future<compile::compile_result>& fut);
    /// Times an already compiled candidate again (the cubin cache answers the compile).
    measure::candidate_result remeasure(const config& c, const measure::measure_policy& p);

    [[nodiscard]] double compile_wait_s() const noexcept { return compile_wait_s_; }
    /// Summed over the workers started (1 + replacements): GPU context, buffers, helpers.
    [[nodiscard]] double worker_setup_s() const noexcept { return worker_setup_s_; }
    /// Workers and compile servers started for this tune (a session's earlier ones not counted).
    [[nodiscard]] int spawned() const noexcept { return rt_.worker.spawned() - spawned_before_; }
    [[nodiscard]] int servers_started() const noexcept {
        return rt_.pool.servers_started() - servers_before_;
    }
    [[nodiscard]] int server_failures() const noexcept {
        return rt_.pool.server_failures() - failures_before_;
    }
    [[nodiscard]] unsigned compile_threads() const noexcept { return rt_.pool.threads(); }
    [[nodiscard]] bool worker_kept() const noexcept { return rt_.worker.kept(); }
    /// The GPU the worker runs on (its first answer says), "" before that.
    [[nodiscard]] const std::string& worker_device() const noexcept { return worker_uuid_; }
    [[nodiscard]] const std::string& keep_note() const noexcept { return rt_.worker.keep_note(); }
    /// The first worker's start-up milestones of this tune, "spawn" first (steady_clock ms since
    /// its epoch); empty when the worker was started by an earlier tune of the session.
    [[nodiscard]] const std::vector<std::pair<std::string, double>>& worker_marks() const noexcept {
        return worker_marks_;
    }

private:
    const tune_request& rq_;
    const ops::op& op_;
    std::string arch_;
    std::unique_ptr<runtime> own_; // before rt_, which may refer to it
    runtime& rt_;
    int spawned_before_ = 0, servers_before_ = 0, failures_before_ = 0;
    std::uint64_t requests_ = 0;
    std::optional<measure::measure_policy> policy_override_;
    double compile_wait_s_ = 0;
    double worker_setup_s_ = 0;
    std::vector<std::pair<std::string, double>> worker_marks_;
    std::string worker_uuid_;
};

} // namespace ktune::tune::detail
