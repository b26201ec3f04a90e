#include "core/child_process.hpp"
#include "ktune/compile/compile.hpp"
#include "ktune/core/error.hpp"
#include "ktune/measure/gpu_runner.hpp"
#include "ktune/worker/worker.hpp"
#include "worker/worker_daemon.hpp"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <unistd.h>

namespace ktune::worker {
namespace {

/// The worker's state across the connections of a kept worker (one for a piped worker).
struct worker_state {
    std::optional<measure::gpu_runner> runner;
    std::string setup_error;
    double setup_ms = 0; ///< reported once, with the first answer
    measure::gpu_runner::marks marks;

    void set_up() {
        // The GPU context, buffers and helper kernels are set up before the first request is
        // read: the client spawns the worker early, so this overlaps with its own start-up.
        const auto t0 = std::chrono::steady_clock::now();
        try {
            runner.emplace(&marks);
        } catch (const std::exception& e) {
            setup_error = e.what();
        }
        setup_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                       .count();
    }

    /// Answers one client's requests in order until EOF (0); exits the process after a fault
    /// that destroyed the CUDA context.
    int serve(int in_fd, int out_fd) {
        std::string buf, line;
        bool first_line = true;
        while (ktune::detail::read_line(in_fd, buf, line)) {
            if (first_line) marks.emplace_back("first_request", measure::monotonic_ms());
            first_line = false;
            candidate_result res;
            try {
                const candidate_request rq = measure::decode_request(line);
                if (rq.prepare) { // buffers ahead of the first candidate; no answer
                    if (runner) runner->prepare(rq);
                    marks.emplace_back("prepared", measure::monotonic_ms());
                    continue;
                }
                if (!runner) throw error(error_kind::no_device, setup_error);
                res = runner->run(rq);
            } catch (const error& e) {
                // Setup failures (no GPU, allocation) end this worker: the client reports them.
                res.status = run_status::launch_error;
                res.message = e.what();
                res.fatal = true;
            } catch (const std::exception& e) {
                res.status = run_status::launch_error;
                res.message = std::string("internal: ") + e.what();
                res.fatal = true;
            }
            res.setup_ms = setup_ms;
            setup_ms = 0;
            if (!marks.empty()) {
                if (runner) res.device_uuid = runner->device().uuid;
                marks.emplace_back("first_answer", measure::monotonic_ms());
                res.setup_marks = std::move(marks);
                marks.clear();
            }
            if (!ktune::detail::write_all(out_fd, measure::encode(res) + "\n")) return 1;
            // The context is gone: skip destructors (they would only log failing frees) and
            // let the driver reclaim everything with the process.
            if (res.fatal) std::_Exit(3);
        }
        return 0; // end of input: the client is done
    }
};

} // namespace

int worker_main(int in_fd, int out_fd) {
    // The compile pool starts the same binary as its compile servers: no GPU context for them.
    if (const char* role = std::getenv(compile::worker_role_env);
        role && std::string_view(role) == "compile")
        return compile::compile_server_main(in_fd, out_fd);
    // One hardware work queue: the worker runs everything on one stream, and the context makes
    // one channel per allowed connection when it is created. H200 (bench/tune/ctx_probe.sh,
    // docs/perf/tune.md#one-connection-context): context 45 ms with 1 connection, 98 ms with the
    // default 8, 471 ms with 32 (a value training setups often export). Set before the first CUDA
    // call of this process.
    ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 1);
    // Start-up milestones for the tuner's set-up split (exec → main is the time from its
    // spawn to "main": the loader and static initialisers).
    worker_state w;
    w.marks.emplace_back("main", measure::monotonic_ms());
    // A kept worker (worker_daemon.hpp): the same service on a socket, one client at a time.
    if (const char* sock = std::getenv(detail::daemon_env); sock && *sock) {
        const char* idle = std::getenv(detail::daemon_idle_env);
        return detail::daemon_main(
            sock, idle ? std::max(1, std::atoi(idle)) : 60,
            [&] {
                w.set_up();
                return w.runner.has_value();
            },
            [&](int in, int out) { return w.serve(in, out); },
            [&] {
                if (w.runner) w.runner->release();
            });
    }
    w.set_up();
    return w.serve(in_fd, out_fd);
}

} // namespace ktune::worker
