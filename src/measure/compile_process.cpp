#include "measure/compile_process.hpp"

#include "measure/compile_private.hpp"
#include "measure/compile_wire.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace ktune::measure::detail {
namespace {

bool write_all(int fd, std::string_view s) {
    while (!s.empty()) {
        const ssize_t n = ::write(fd, s.data(), s.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        s.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

std::string exit_reason(int pid) {
    int st = 0;
    // A dying server is reaped within milliseconds; its status names the cause (signal 11...).
    for (int i = 0; i < 50; ++i) {
        if (::waitpid(pid, &st, WNOHANG) == pid) {
            if (WIFSIGNALED(st)) return fmt::format("killed by signal {}", WTERMSIG(st));
            return fmt::format("exited with code {}", WEXITSTATUS(st));
        }
        ::usleep(2000);
    }
    return "closed its pipe";
}

} // namespace

compile_process::compile_process(std::vector<std::string> argv,
                                 std::chrono::milliseconds batch_timeout)
    : argv_(std::move(argv)), timeout_(batch_timeout) {
    std::signal(SIGPIPE, SIG_IGN); // a server dying mid-write must not kill the client
}

compile_process::~compile_process() {
    // EOF first: a server exits on its own within milliseconds (so anything it holds, e.g. a
    // profiler's trace under `ktune profile`, is finished); a stuck one is killed.
    if (pid_ > 0) {
        ::close(to_fd_);
        to_fd_ = -1;
        int st = 0;
        for (int i = 0; i < 250; ++i) { // up to 0.5 s
            if (::waitpid(pid_, &st, WNOHANG) == pid_) {
                pid_ = -1;
                break;
            }
            ::usleep(2000);
        }
    }
    stop();
}

void compile_process::stop() noexcept {
    if (to_fd_ >= 0) ::close(to_fd_);
    if (from_fd_ >= 0) ::close(from_fd_);
    to_fd_ = from_fd_ = -1;
    if (pid_ > 0) {
        ::kill(-pid_, SIGKILL);
        ::kill(pid_, SIGKILL);
        int st = 0;
        ::waitpid(pid_, &st, 0);
    }
    pid_ = -1;
    buffer_.clear();
}

bool compile_process::start() {
    if (pid_ > 0) return true;
    if (argv_.empty()) {
        why_ = "no compile server command";
        return false;
    }
    // Everything the child needs is built before fork: between fork and exec only
    // async-signal-safe calls (the parent has other threads).
    std::vector<std::string> env_store;
    for (char** e = environ; e && *e; ++e)
        if (std::strncmp(*e, worker_role_env, std::strlen(worker_role_env)) != 0)
            env_store.emplace_back(*e);
    env_store.push_back(fmt::format("{}=compile", worker_role_env));
    std::vector<char*> envp, args;
    for (auto& e : env_store)
        envp.push_back(e.data());
    envp.push_back(nullptr);
    for (auto& a : argv_)
        args.push_back(a.data());
    args.push_back(nullptr);
    int to[2], from[2];
    if (::pipe2(to, O_CLOEXEC) != 0) {
        why_ = fmt::format("pipe: {}", std::strerror(errno));
        return false;
    }
    if (::pipe2(from, O_CLOEXEC) != 0) {
        why_ = fmt::format("pipe: {}", std::strerror(errno));
        ::close(to[0]);
        ::close(to[1]);
        return false;
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
        why_ = fmt::format("fork: {}", std::strerror(errno));
        for (int fd : {to[0], to[1], from[0], from[1]})
            ::close(fd);
        return false;
    }
    if (pid == 0) {
        ::setpgid(0, 0); // own group: a kill also reaches anything the server started
        // Compiling is throughput work; the measurement worker and the tuner are the critical
        // path and must never wait for a core (on the H200, 16 servers starting beside the
        // worker doubled its context set-up: 0.13 -> 0.25 s).
        ::setpriority(PRIO_PROCESS, 0, 10);
        ::dup2(to[0], 0);
        ::dup2(from[1], 1);
        ::execve(args[0], args.data(), envp.data());
        ::_exit(127);
    }
    ::setpgid(pid, pid); // both sides: no window where a kill misses the group
    ::close(to[0]);
    ::close(from[1]);
    pid_ = pid;
    to_fd_ = to[1];
    from_fd_ = from[0];
    buffer_.clear();
    ++started_;
    // Its first line says it runs and can compile (an exec failure or a binary without the
    // compile role never says it; 5 s, since every slot waits this long before falling back).
    const auto line = read_line(std::chrono::steady_clock::now() + std::chrono::seconds(5));
    if (!line || !is_ready_line(*line)) {
        if (line) why_ = fmt::format("compile server answered '{}' instead of ready", *line);
        why_ = fmt::format("{}: {}", argv_.front(), why_);
        stop();
        return false;
    }
    return true;
}

std::optional<std::string>
compile_process::read_line(std::chrono::steady_clock::time_point deadline) {
    for (;;) {
        if (const auto nl = buffer_.find('\n'); nl != std::string::npos) {
            std::string line = buffer_.substr(0, nl);
            buffer_.erase(0, nl + 1);
            return line;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            why_ = "gave no answer in time";
            return std::nullopt;
        }
        pollfd p{from_fd_, POLLIN, 0};
        const int rc = ::poll(&p, 1, static_cast<int>(left.count()));
        if (rc < 0 && errno == EINTR) continue;
        if (rc == 0) continue;
        char buf[65536];
        const ssize_t n = ::read(from_fd_, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            why_ = exit_reason(pid_);
            if (why_.rfind("closed", 0) != 0) pid_ = -1; // reaped
            return std::nullopt;
        }
        buffer_.append(buf, static_cast<std::size_t>(n));
    }
}

std::optional<std::vector<compile_result>>
compile_process::compile(const std::vector<compile_request>& rs, const std::filesystem::path& dir) {
    if (!start()) return std::nullopt;
    const auto failed = [&](const std::string& reason) {
        ++failures_;
        stop(); // replaced on the next batch
        std::vector<compile_result> out(rs.size());
        for (auto& r : out)
            r.log = fmt::format("compile server {} while compiling this batch of {}; it was "
                                "replaced (the candidate itself may be the cause)",
                                reason, rs.size());
        return out;
    };
    if (!write_all(to_fd_, encode_batch(rs, dir) + "\n")) {
        why_ = exit_reason(pid_);
        if (why_.rfind("closed", 0) != 0) pid_ = -1; // reaped
        return failed(why_);
    }
    const auto line = read_line(std::chrono::steady_clock::now() + timeout_);
    if (!line) return failed(why_);
    std::vector<compile_result> out;
    try {
        out = decode_results(*line);
    } catch (const std::exception& e) {
        return failed(fmt::format("answered garbage ({})", e.what()));
    }
    if (out.size() != rs.size())
        return failed(fmt::format("answered {} results for {} requests", out.size(), rs.size()));
    for (auto& r : out)
        if (r.ok) r.cubin = read_file(r.cubin_path);
    return out;
}

} // namespace ktune::measure::detail
