#pragma once
// Fault isolation: candidates run in a separate worker process. A kernel that traps, writes out
// of bounds (a sticky error that kills the CUDA context) or never ends takes the worker down,
// never the tune; the client notes the status and starts a fresh worker for the next one.
//
//   ktune::worker::worker_process w(ktune::worker::default_worker_command());
//   candidate_result r = w.run(request, std::chrono::seconds(10));  // never throws for a fault
//
// The worker side is worker_main(): one JSON line in (candidate_request), one JSON line out
// (candidate_result), in order; requests may be queued ahead (submit/collect). The ktune-worker
// executable runs it; any binary linked with ktune can, too. To run one config of an op without
// filling requests by hand, see run_config.hpp.

#include "ktune/measure/candidate.hpp"

#include <chrono>
#include <deque>
#include <string>
#include <vector>

namespace ktune::worker {

// The wire types are the measure module's: a worker runs its timing protocol.
using measure::candidate_request;
using measure::candidate_result;
using measure::run_status;

/// Reads requests from in_fd, runs them on device 0, answers on out_fd until EOF. Returns the
/// process exit code (0 at EOF, 3 after a fault that destroyed the CUDA context).
int worker_main(int in_fd, int out_fd);

/// argv of the ktune-worker executable: $KTUNE_WORKER if set (its path), else the first found
/// beside the running program, beside libktune, in the build tree, in the install prefix.
/// Throws error{unsupported} listing where it looked.
std::vector<std::string> default_worker_command();

class worker_process {
public:
    /// keep_alive_s > 0: use a worker that outlives this process (opt-in; worker_daemon.hpp
    /// in src/worker): connect to the one this user's earlier runs left, or start one that
    /// waits keep_alive_s seconds for the next client. Where that cannot be done (busy with
    /// another client, unsafe directory) a private worker is started and keep_note() says why.
    explicit worker_process(std::vector<std::string> argv, int keep_alive_s = 0);
    ~worker_process();
    worker_process(const worker_process&) = delete;
    worker_process& operator=(const worker_process&) = delete;

    /// Sends r, waits up to `timeout` for the answer. Timeout → the worker is killed and the
    /// status is timeout; EOF → worker_died (with the exit status). Spawns lazily. Answers
    /// every request submitted before it first.
    candidate_result run(const candidate_request& r, std::chrono::milliseconds timeout);

    /// Pipelined use: submit() queues r behind the requests in flight, so the worker starts on
    /// it the moment it has answered the one before (no round trip between candidates);
    /// collect() waits up to `timeout` for the oldest answer. A fault, timeout or death ends
    /// only the oldest request: the ones queued behind it are sent again to a fresh worker.
    void submit(const candidate_request& r);
    candidate_result collect(std::chrono::milliseconds timeout);
    [[nodiscard]] std::size_t in_flight() const noexcept { return pending_.size(); }

    /// Starts the worker now (it sets up its GPU context while the caller does other work).
    void start();
    /// Tells the worker the problem of the requests to come (r's op, shape and dtype) so it
    /// allocates their buffers as soon as its context is up, while the first candidate still
    /// compiles. No answer; lost harmlessly if the worker is replaced (it then sets up lazily).
    void prepare(const candidate_request& r);
    /// The current worker is a kept one (connected, not spawned by this process).
    [[nodiscard]] bool kept() const noexcept { return kept_; }
    /// Why a kept worker was asked for and not used ("" when it was, or not asked for).
    [[nodiscard]] const std::string& keep_note() const noexcept { return keep_note_; }
    /// When the current worker was spawned or connected to (steady_clock ms since its epoch).
    [[nodiscard]] double spawned_at_ms() const noexcept { return spawned_at_ms_; }
    /// Kills the worker and forgets the requests in flight; the next request starts a new one.
    void restart();
    /// Workers started so far (1 + replacements after faults).
    [[nodiscard]] int spawned() const noexcept { return spawned_; }

private:
    void spawn();
    void kill_worker() noexcept;
    std::string describe_exit() noexcept;

    std::vector<std::string> argv_;
    int pid_ = -1;
    int to_fd_ = -1;
    int from_fd_ = -1;
    void send_pending() noexcept;

    std::string buffer_;
    std::deque<std::string> pending_; ///< encoded requests not answered yet, oldest first
    int spawned_ = 0;
    double spawned_at_ms_ = 0;
    int keep_alive_s_ = 0;
    bool kept_ = false;
    int client_lock_ = -1; ///< held while connected to a kept worker
    std::string keep_note_;
};

} // namespace ktune::worker
