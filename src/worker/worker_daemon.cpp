// A measurement worker that outlives one tuner process: paths, the client's connect (or start),
// and the daemon's accept loop (worker_daemon.hpp says why each file exists).
#include "worker/worker_daemon.hpp"
#include "ktune/core/env.hpp"

#include "core/cache_files.hpp"
#include "core/child_process.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <poll.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace ktune::worker::detail {

using ktune::detail::child_fds;
using ktune::detail::close_input_and_reap;
using ktune::detail::kill_and_reap;
using ktune::detail::read_line;
using ktune::detail::reap_reason;
using ktune::detail::spawn_piped;
using ktune::detail::write_all;
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using ktune::detail::fnv1a;
using ktune::detail::read_file;
using ktune::detail::write_atomic;

std::string runtime_dir(fs::path& dir) {
    const char* xdg = std::getenv("XDG_RUNTIME_DIR");
    dir = xdg && *xdg ? fs::path(xdg) / "ktune" : fs::path(fmt::format("/tmp/ktune-{}", getuid()));
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
        return fmt::format("cannot create {}: {}", dir.string(), std::strerror(errno));
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0)
        return fmt::format("cannot stat {}: {}", dir.string(), std::strerror(errno));
    // Anyone who can write here could hand us a socket of theirs: ours alone, or no kept worker.
    if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077) != 0)
        return fmt::format("{} is not a directory of this user with mode 0700; remove it or "
                           "set XDG_RUNTIME_DIR",
                           dir.string());
    return {};
}

/// What the worker's behaviour depends on: its command, the binary itself (a rebuild gets a new
/// daemon) and the environment that picks the GPU and the cubin cache.
std::uint64_t fingerprint(const std::vector<std::string>& argv) {
    std::uint64_t h = ktune::detail::fnv1a_basis;
    for (const auto& a : argv)
        h = fnv1a(h, a + '\0');
    struct stat st {};
    if (!argv.empty() && ::stat(argv.front().c_str(), &st) == 0)
        h = fnv1a(h, fmt::format("{}.{}:{}:{}", st.st_mtim.tv_sec, st.st_mtim.tv_nsec, st.st_size,
                                 st.st_ino));
    for (const char* v : {"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", ktune::env::cubin_cache,
                          "XDG_CACHE_HOME", "HOME", "LD_LIBRARY_PATH", "CUDA_MODULE_LOADING"}) {
        const char* e = std::getenv(v);
        h = fnv1a(h, fmt::format("{}={}{}", v, e ? "1" : "0", e ? e : ""));
    }
    return h;
}

int try_connect(const fs::path& sock) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::memcpy(a.sun_path, sock.c_str(), sock.string().size() + 1);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) return fd;
    ::close(fd);
    return -1;
}

int lock_file(const fs::path& p) {
    const int fd = ::open(p.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

/// fork, setsid, fork again: the daemon belongs to no tuner (never its zombie, never in its
/// process group, so neither a Ctrl-C nor the tuner's exit reaches it).
std::string start_daemon(const std::vector<std::string>& argv, const daemon_paths& p, int idle_s) {
    std::vector<std::string> env;
    for (char** e = environ; e && *e; ++e)
        if (std::strncmp(*e, ktune::env::worker_prefix, 13) != 0) env.emplace_back(*e);
    env.push_back(fmt::format("{}={}", daemon_env, p.sock.string()));
    env.push_back(fmt::format("{}={}", daemon_idle_env, idle_s));
    std::vector<std::string> args = argv;
    std::vector<char*> a, e;
    for (auto& s : args)
        a.push_back(s.data());
    a.push_back(nullptr);
    for (auto& s : env)
        e.push_back(s.data());
    e.push_back(nullptr);
    const std::string log = p.log.string();
    const pid_t pid = ::fork();
    if (pid < 0) return fmt::format("fork: {}", std::strerror(errno));
    if (pid == 0) {
        ::setsid();
        const pid_t again = ::fork();
        if (again != 0) ::_exit(again < 0 ? 1 : 0);
        const int nul = ::open("/dev/null", O_RDWR);
        const int err = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
        ::dup2(nul, 0);
        ::dup2(nul, 1);
        if (err >= 0) ::dup2(err, 2);
        ::execve(a[0], a.data(), e.data());
        ::_exit(127);
    }
    int st = 0;
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    return {};
}

int read_pid(const fs::path& p) {
    const std::string s = read_file(p);
    const int pid = std::atoi(s.c_str());
    return pid > 0 && process_alive(pid) ? pid : -1;
}

} // namespace

bool process_alive(int pid) noexcept {
    if (pid <= 0 || ::kill(pid, 0) != 0) return false;
    try {
        // /proc/<pid>/stat: "pid (comm) S ...": the state follows the last ')'.
        const std::string st = read_file(fmt::format("/proc/{}/stat", pid));
        const auto close = st.rfind(')');
        return close == std::string::npos || close + 2 >= st.size() || st[close + 2] != 'Z';
    } catch (...) {
        return true;
    }
}

std::string daemon_paths_for(const std::vector<std::string>& argv, daemon_paths& out) {
    if (auto why = runtime_dir(out.dir); !why.empty()) return why;
    const fs::path base = out.dir / fmt::format("worker-{:016x}", fingerprint(argv));
    out.sock = base.string() + ".sock";
    out.lock = base.string() + ".lock";
    out.client = base.string() + ".client";
    out.pid = base.string() + ".pid";
    out.log = base.string() + ".log";
    if (out.sock.string().size() >= sizeof(sockaddr_un::sun_path))
        return fmt::format("socket path {} is too long; set XDG_RUNTIME_DIR to a shorter "
                           "directory",
                           out.sock.string());
    return {};
}

std::string connect_kept_worker(const std::vector<std::string>& argv, int idle_s,
                                daemon_connection& out) {
    daemon_paths p;
    if (auto why = daemon_paths_for(argv, p); !why.empty()) return why;
    const int client = lock_file(p.client);
    if (client < 0) return "the kept worker is serving another ktune; this one uses its own";
    int fd = try_connect(p.sock);
    if (fd < 0) {
        if (auto why = start_daemon(argv, p, idle_s); !why.empty()) {
            ::close(client);
            return why;
        }
        // It listens within milliseconds of its exec (before its GPU set-up, which the
        // requests queued on the socket then overlap, as with a piped worker).
        const auto deadline = std::chrono::steady_clock::now() + 3s;
        while ((fd = try_connect(p.sock)) < 0 && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(2ms);
        if (fd < 0) {
            ::close(client);
            return fmt::format("the kept worker did not start listening (see {})", p.log.string());
        }
    }
    const int pid = read_pid(p.pid); // written before it listens
    if (pid <= 0) {
        ::close(fd);
        ::close(client);
        return fmt::format("the kept worker's pid file {} names no live process", p.pid.string());
    }
    out = {fd, pid, client};
    return {};
}

void disconnect(daemon_connection& c) noexcept {
    if (c.fd >= 0) ::close(c.fd);
    if (c.client_lock >= 0) ::close(c.client_lock);
    c = {};
}

int daemon_main(const std::string& sock, int idle_s, const std::function<bool()>& setup,
                const std::function<int(int, int)>& serve, const std::function<void()>& release) {
    std::signal(SIGPIPE, SIG_IGN); // a client gone mid-answer must not kill the daemon
    const std::string base = sock.substr(0, sock.size() - std::string_view(".sock").size());
    const int lock = lock_file(base + ".lock");
    if (lock < 0) return 0; // another daemon holds it: that one serves
    try {
        write_atomic(base + ".pid", std::to_string(getpid()));
    } catch (const std::exception&) {
        return 1;
    }
    ::unlink(sock.c_str()); // a dead daemon's socket (we hold the lock: no live one owns it)
    const int lfd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    if (lfd < 0 || sock.size() >= sizeof a.sun_path) return 1;
    std::memcpy(a.sun_path, sock.c_str(), sock.size() + 1);
    const mode_t old = ::umask(077);
    const bool bound = ::bind(lfd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::umask(old);
    if (!bound || ::listen(lfd, 4) != 0) return 1;
    const auto leave = [&] {
        ::unlink(sock.c_str());
        ::unlink((base + ".pid").c_str());
        // An empty log goes too; the two lock files stay (unlinking a lock file another
        // process is about to flock would let two daemons each hold "the" lock).
        struct stat st {};
        if (::stat((base + ".log").c_str(), &st) == 0 && st.st_size == 0)
            ::unlink((base + ".log").c_str());
    };
    const bool ready = setup();
    // The problem's buffers stay for a moment after a client leaves: back-to-back tunes (a
    // script, a benchmark) find them; a daemon that waits longer frees them.
    constexpr int keep_buffers_ms = 2000;
    bool holding = false;
    auto last = std::chrono::steady_clock::now(); // the idle time counts from here
    for (;;) {
        const auto idle_left =
            idle_s * 1000LL - std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::steady_clock::now() - last)
                                  .count();
        const long long wait =
            std::max(0LL, holding ? std::min<long long>(keep_buffers_ms, idle_left) : idle_left);
        pollfd pl{lfd, POLLIN, 0};
        const int rc = ::poll(&pl, 1, static_cast<int>(wait));
        if (rc < 0 && errno == EINTR) continue;
        if (rc == 0) {
            if (holding) {
                release();
                holding = false;
                continue;
            }
            // Idle: leave only when no client is about to connect (it would hold this lock).
            if (const int c = lock_file(base + ".client"); c >= 0) {
                leave();
                return 0;
            }
            last = std::chrono::steady_clock::now();
            continue;
        }
        const int conn = ::accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
        if (conn < 0) continue;
        ucred cred{};
        socklen_t len = sizeof cred;
        if (::getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.uid != getuid()) {
            ::close(conn);
            continue;
        }
        // A client that disappears while a candidate runs leaves nobody to kill a hung kernel:
        // the daemon ends itself 3 s after its peer hangs up mid-request. The watchdog is woken
        // the moment the client is done: the next client must not wait for its nap (on the H200
        // a 200 ms sleep here delayed back-to-back tunes by ~110 ms).
        std::mutex mu;
        std::condition_variable cv;
        bool done = false;
        std::thread watchdog([&] {
            std::chrono::steady_clock::time_point hup{};
            std::unique_lock held(mu);
            while (!cv.wait_for(held, 200ms, [&] { return done; })) {
                pollfd pc{conn, POLLRDHUP, 0};
                if (::poll(&pc, 1, 0) > 0 && (pc.revents & (POLLRDHUP | POLLHUP))) {
                    if (hup == std::chrono::steady_clock::time_point{})
                        hup = std::chrono::steady_clock::now();
                    else if (std::chrono::steady_clock::now() - hup > 3s)
                        ::_exit(4);
                }
            }
        });
        (void)serve(conn, conn);
        {
            const std::lock_guard held(mu);
            done = true;
        }
        cv.notify_one();
        watchdog.join();
        ::close(conn);
        holding = true;
        last = std::chrono::steady_clock::now();
        if (!ready) break; // no GPU: one client was told why; nothing to keep
    }
    release();
    leave();
    return 0;
}

} // namespace ktune::worker::detail
