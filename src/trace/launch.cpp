// fork + exec of the profiled command with the injection environment. The parent ignores
// SIGINT/SIGQUIT while it waits so that Ctrl-C stops the program, not the report after it.
#include "ktune/trace/launch.hpp"
#include "ktune/core/env.hpp"

#include "ktune/core/error.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/wait.h>
#include <unistd.h>

namespace ktune::trace {

namespace fs = std::filesystem;

std::string find_inject_library(const std::string& executable) {
    if (const char* p = std::getenv(ktune::env::inject_library); p && *p) {
        if (fs::exists(p)) return fs::absolute(p).string();
        throw error(error_kind::not_found,
                    std::string("KTUNE_INJECT_LIBRARY=") + p + " does not exist");
    }
    std::error_code ec;
    fs::path exe = fs::canonical(executable, ec);
    if (ec) exe = fs::absolute(executable);
    const fs::path dir = exe.parent_path();
    const fs::path candidates[] = {
        dir / "../../src/inject/libktune_inject.so", // build tree: <build>/tools/ktune-cli/ktune
        dir / "../lib/libktune_inject.so",           // install: <prefix>/bin/ktune
        dir / "../lib64/libktune_inject.so",
        dir / "libktune_inject.so",
    };
    std::string looked;
    for (const auto& c : candidates) {
        if (fs::exists(c)) return fs::canonical(c).string();
        looked += "\n  " + c.lexically_normal().string();
    }
    throw error(error_kind::not_found,
                "libktune_inject.so not found; looked in:" + looked +
                    "\nbuild the ktune_inject target or set KTUNE_INJECT_LIBRARY");
}

launch_result run_profiled(const launch_request& req) {
    if (req.command.empty())
        throw error(error_kind::usage, "nothing to profile: give the command after --, e.g. "
                                       "ktune profile -- ./app");
    const std::string lib =
        req.inject_library.empty() ? find_inject_library("/proc/self/exe") : req.inject_library;
    const std::string output = fs::absolute(req.output).string();
    if (fs::exists(output)) fs::remove(output);

    std::vector<char*> argv;
    for (const auto& a : req.command)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);

    const auto launched = fs::file_time_type::clock::now();
    int pipefd[2];
    if (pipe(pipefd) != 0) throw error(error_kind::io, "pipe failed");
    const pid_t child = fork();
    if (child < 0) throw error(error_kind::io, std::string("fork failed: ") + std::strerror(errno));
    if (child == 0) {
        close(pipefd[0]);
        setenv("CUDA_INJECTION64_PATH", lib.c_str(), 1);
        setenv("NVTX_INJECTION64_PATH", lib.c_str(), 1);
        setenv(ktune::env::output, output.c_str(), 1);
        setenv(ktune::env::root_pid, std::to_string(getpid()).c_str(), 1);
        setenv(ktune::env::delay, std::to_string(req.delay_s).c_str(), 1);
        setenv(ktune::env::duration, std::to_string(req.duration_s).c_str(), 1);
        if (!req.record.empty()) setenv(ktune::env::record, req.record.c_str(), 1);
        if (!req.nvtx_link.empty()) setenv(ktune::env::nvtx_link, req.nvtx_link.c_str(), 1);
        if (!req.graph_trace.empty()) setenv(ktune::env::graph_trace, req.graph_trace.c_str(), 1);
        ::fcntl(pipefd[1], F_SETFD, FD_CLOEXEC);
        execvp(argv[0], argv.data());
        const int err = errno;
        (void)!write(pipefd[1], &err, sizeof err);
        _exit(127);
    }
    close(pipefd[1]);
    int exec_errno = 0;
    const bool exec_failed = read(pipefd[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno;
    close(pipefd[0]);

    struct sigaction ignore {
    }, old_int{}, old_quit{};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGINT, &ignore, &old_int);
    sigaction(SIGQUIT, &ignore, &old_quit);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGQUIT, &old_quit, nullptr);
    if (exec_failed)
        throw error(error_kind::not_found,
                    "cannot run '" + req.command[0] + "': " + std::strerror(exec_errno));

    launch_result r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status)
                                    : (WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1);
    if (fs::exists(output)) r.traces.push_back(output);
    // Child processes wrote <stem>.<pid>.ktrace beside it.
    const fs::path out(output);
    const std::string stem = out.stem().string() + ".";
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(out.parent_path(), ec)) {
        const std::string name = e.path().filename().string();
        if (name.size() > stem.size() + 7 && name.rfind(stem, 0) == 0 &&
            name.ends_with(".ktrace") &&
            name.find_first_not_of("0123456789", stem.size()) == name.size() - 7 &&
            e.last_write_time(ec) >= launched) // not a leftover of an earlier run
            r.traces.push_back(e.path().string());
    }
    return r;
}

} // namespace ktune::trace
