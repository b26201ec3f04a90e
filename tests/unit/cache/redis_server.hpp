#pragma once
// A real redis-server for the shared-tier tests and benchmark: started on a unix socket in a
// fresh temp directory (no TCP port, no persistence), stopped and removed at scope exit.
#include <chrono>
#include <csignal>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace cache_test {

/// The redis-server binary on PATH, or "" where it is not installed.
inline std::string find_redis_server() {
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/bin:/bin";
    for (std::size_t at = 0; at <= dirs.size();) {
        const std::size_t end = std::min(dirs.find(':', at), dirs.size());
        const auto candidate = std::filesystem::path(dirs.substr(at, end - at)) / "redis-server";
        if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
        at = end + 1;
    }
    return "";
}

class redis_server {
public:
    redis_server() {
        static int n = 0;
        dir_ = std::filesystem::temp_directory_path() /
               ("ktune-redis-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
        socket_ = (dir_ / "redis.sock").string();
        start();
    }
    ~redis_server() {
        stop(SIGTERM);
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
    redis_server(const redis_server&) = delete;
    redis_server& operator=(const redis_server&) = delete;

    [[nodiscard]] std::string url() const { return "unix://" + socket_; }
    [[nodiscard]] const std::filesystem::path& dir() const { return dir_; }

    /// Starts the server (again) on the same socket; waits until it accepts connections.
    void start() {
        const std::string bin = find_redis_server();
        if (bin.empty()) throw std::runtime_error("redis-server not found");
        std::filesystem::remove(socket_);
        pid_ = ::fork();
        if (pid_ < 0) throw std::runtime_error("fork failed");
        if (pid_ == 0) {
            const std::string d = dir_.string();
            ::execl(bin.c_str(), bin.c_str(), "--port", "0", "--unixsocket", socket_.c_str(),
                    "--dir", d.c_str(), "--save", "", "--appendonly", "no", "--daemonize", "no",
                    "--loglevel", "warning", "--logfile", (d + "/redis.log").c_str(),
                    static_cast<char*>(nullptr));
            ::_exit(127);
        }
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!accepts()) {
            if (std::chrono::steady_clock::now() > deadline)
                throw std::runtime_error("redis-server did not open " + socket_);
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    }
    /// Sends `sig` (SIGKILL: as if it crashed) and reaps the process.
    void stop(int sig) {
        if (pid_ <= 0) return;
        ::kill(pid_, sig);
        ::waitpid(pid_, nullptr, 0);
        pid_ = -1;
    }
    /// SIGSTOP / SIGCONT: a server that accepts connections but never answers.
    void pause() const { ::kill(pid_, SIGSTOP); }
    void resume() const { ::kill(pid_, SIGCONT); }

private:
    [[nodiscard]] bool accepts() const {
        const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        socket_.copy(a.sun_path, sizeof a.sun_path - 1);
        const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
        ::close(fd);
        return ok;
    }

    std::filesystem::path dir_;
    std::string socket_;
    pid_t pid_ = -1;
};

} // namespace cache_test
