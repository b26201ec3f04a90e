// Wall time of a command, start to exit: posix_spawn, then a pidfd poll for the timeout, so the
// wait adds no polling granularity to the measurement.
#include "ktune/guard/suite.hpp"

#include "ktune/core/error.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace ktune::guard {
namespace {

// Runs once; returns seconds. Throws on spawn failure, non-zero exit, signal or timeout.
double run_once(const command_entry& c, int run, int runs) {
    std::vector<char*> argv;
    for (const auto& a : c.run)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const int rc = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        throw error(error_kind::not_found, fmt::format("command '{}': cannot start {}: {}", c.name,
                                                       c.run.front(), std::strerror(rc)));
    const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
    bool timed_out = false;
    if (pidfd >= 0) {
        pollfd p{pidfd, POLLIN, 0};
        const int ms = static_cast<int>(std::min(c.timeout_s * 1000.0, 2.0e9));
        int n = 0;
        do
            n = poll(&p, 1, ms);
        while (n < 0 && errno == EINTR);
        close(pidfd);
        if (n == 0) {
            kill(pid, SIGKILL);
            timed_out = true;
        }
    } // no pidfd (old kernel): wait without a timeout
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    const auto t1 = std::chrono::steady_clock::now();
    const std::string which = fmt::format("command '{}' (run {} of {})", c.name, run, runs);
    if (timed_out)
        throw error(
            error_kind::timeout,
            fmt::format("{} ran past its timeout of {} s and was killed", which, c.timeout_s));
    if (WIFSIGNALED(status))
        throw error(error_kind::input,
                    fmt::format("{} was killed by signal {}", which, WTERMSIG(status)));
    if (WEXITSTATUS(status) != 0)
        throw error(error_kind::input, fmt::format("{} exited with status {}; a failing "
                                                   "command has no meaningful time",
                                                   which, WEXITSTATUS(status)));
    return std::chrono::duration<double>(t1 - t0).count();
}

} // namespace

std::vector<double> time_command(const command_entry& c,
                                 const std::function<void(int run, int runs)>& progress) {
    if (c.run.empty()) throw error(error_kind::usage, "command '" + c.name + "' has no argv");
    const int total = c.warmup + c.repeat;
    std::vector<double> out;
    out.reserve(static_cast<std::size_t>(c.repeat));
    for (int i = 0; i < total; ++i) {
        if (progress) progress(i + 1, total);
        const double s = run_once(c, i + 1, total);
        if (i >= c.warmup) out.push_back(s);
    }
    return out;
}

} // namespace ktune::guard
