#include "ktune/core/error.hpp"
#include "ktune/measure/compile.hpp"
#include "ktune/measure/worker.hpp"
#include "measure/child_process.hpp"
#include "measure/gpu_runner.hpp"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <unistd.h>

namespace ktune::measure {
int worker_main(int in_fd, int out_fd) {
    // The compile pool starts the same binary as its compile servers: no GPU context for them.
    if (const char* role = std::getenv(worker_role_env);
        role && std::string_view(role) == "compile")
        return compile_server_main(in_fd, out_fd);
    // Start-up milestones for the tuner's set-up split (exec → main is the time from its
    // spawn to "main": the loader and static initialisers).
    detail::gpu_runner::marks marks{{"main", detail::monotonic_ms()}};
    // The GPU context, buffers and helper kernels are set up before the first request arrives:
    // the client spawns the worker early, so this overlaps with its own start-up.
    std::optional<detail::gpu_runner> runner;
    std::string setup_error;
    const auto t0 = std::chrono::steady_clock::now();
    try {
        runner.emplace(&marks);
    } catch (const std::exception& e) {
        setup_error = e.what();
    }
    // Reported once, with the first answer: the tuner splits its fixed costs with it.
    double setup_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::string buf, line;
    bool first_line = true;
    while (detail::read_line(in_fd, buf, line)) {
        if (first_line) marks.emplace_back("first_request", detail::monotonic_ms());
        first_line = false;
        candidate_result res;
        try {
            const candidate_request rq = decode_request(line);
            if (rq.prepare) { // buffers ahead of the first candidate; no answer
                if (runner) runner->prepare(rq);
                marks.emplace_back("prepared", detail::monotonic_ms());
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
            marks.emplace_back("first_answer", detail::monotonic_ms());
            res.setup_marks = std::move(marks);
            marks.clear();
        }
        if (!detail::write_all(out_fd, encode(res) + "\n")) return 1;
        // The context is gone: skip destructors (they would only log failing frees) and let
        // the driver reclaim everything with the process.
        if (res.fatal) std::_Exit(3);
    }
    return 0; // end of input: the client is done
}

} // namespace ktune::measure
