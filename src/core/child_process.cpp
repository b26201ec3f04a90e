#include "core/child_process.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ktune::detail {

std::string spawn_piped(child_fds c, std::vector<std::string> argv, std::vector<std::string>* env,
                        int nice) {
    if (argv.empty()) return "no command";
    std::vector<char*> args, envp;
    for (auto& a : argv)
        args.push_back(a.data());
    args.push_back(nullptr);
    if (env) {
        for (auto& e : *env)
            envp.push_back(e.data());
        envp.push_back(nullptr);
    }
    int to[2], from[2];
    if (::pipe2(to, O_CLOEXEC) != 0) return fmt::format("pipe: {}", std::strerror(errno));
    if (::pipe2(from, O_CLOEXEC) != 0) {
        const int e = errno;
        ::close(to[0]);
        ::close(to[1]);
        return fmt::format("pipe: {}", std::strerror(e));
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
        const int e = errno;
        for (int fd : {to[0], to[1], from[0], from[1]})
            ::close(fd);
        return fmt::format("fork: {}", std::strerror(e));
    }
    if (pid == 0) {
        ::setpgid(0, 0); // own group: a kill also reaches anything the child started
        if (nice > 0) ::setpriority(PRIO_PROCESS, 0, nice);
        ::dup2(to[0], 0);
        ::dup2(from[1], 1);
        if (env)
            ::execve(args[0], args.data(), envp.data());
        else
            ::execv(args[0], args.data());
        ::_exit(127);
    }
    ::setpgid(pid, pid); // both sides: no window where a kill misses the group
    ::close(to[0]);
    ::close(from[1]);
    c.pid = pid;
    c.to_fd = to[1];
    c.from_fd = from[0];
    return {};
}

bool close_input_and_reap(child_fds c, int wait_ms) noexcept {
    if (c.pid <= 0) return true;
    if (c.to_fd >= 0) ::close(c.to_fd);
    c.to_fd = -1;
    int st = 0;
    for (int waited = 0; waited <= wait_ms; waited += 2) {
        if (::waitpid(c.pid, &st, WNOHANG) == c.pid) {
            c.pid = -1;
            return true;
        }
        ::usleep(2000);
    }
    return false;
}

void kill_and_reap(child_fds c) noexcept {
    if (c.to_fd >= 0) ::close(c.to_fd);
    if (c.from_fd >= 0) ::close(c.from_fd);
    c.to_fd = c.from_fd = -1;
    if (c.pid > 0) {
        ::kill(-c.pid, SIGKILL);
        ::kill(c.pid, SIGKILL);
        int st = 0;
        ::waitpid(c.pid, &st, 0);
    }
    c.pid = -1;
}

std::string reap_reason(child_fds c) noexcept {
    if (c.pid <= 0) return "is not running";
    int st = 0;
    // A dying child is reaped within milliseconds; its status names the cause (signal 11...).
    for (int i = 0; i < 50; ++i) {
        if (::waitpid(c.pid, &st, WNOHANG) == c.pid) {
            c.pid = -1;
            try {
                if (WIFSIGNALED(st)) return fmt::format("killed by signal {}", WTERMSIG(st));
                return fmt::format("exited with code {}", WEXITSTATUS(st));
            } catch (...) {
                return "ended";
            }
        }
        ::usleep(2000);
    }
    return "closed its pipe";
}

bool read_line(int fd, std::string& buf, std::string& line) {
    char chunk[65536];
    for (;;) {
        if (const auto nl = buf.find('\n'); nl != std::string::npos) {
            line.assign(buf, 0, nl);
            buf.erase(0, nl + 1);
            return true;
        }
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        buf.append(chunk, static_cast<std::size_t>(n));
    }
}

bool write_all(int fd, std::string_view s) noexcept {
    while (!s.empty()) {
        const ssize_t n = ::write(fd, s.data(), s.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        s.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

} // namespace ktune::detail
