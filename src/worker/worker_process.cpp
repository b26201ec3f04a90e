#include "ktune/worker/worker.hpp"

#include "core/child_process.hpp"
#include "core/worker_executable.hpp"
#include "ktune/core/error.hpp"
#include "worker/worker_daemon.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ktune::worker {
namespace {

void write_all(int fd, std::string_view s) {
    if (!ktune::detail::write_all(fd, s)) throw error(error_kind::io, "worker pipe closed");
}

} // namespace

std::vector<std::string> default_worker_command() {
    return ktune::detail::worker_executable_command();
}

worker_process::worker_process(std::vector<std::string> argv, int keep_alive_s)
    : argv_(std::move(argv)), keep_alive_s_(keep_alive_s) {
    if (argv_.empty()) throw error(error_kind::usage, "worker command is empty");
    // A worker that dies mid-write must not kill the tuner with SIGPIPE.
    std::signal(SIGPIPE, SIG_IGN);
}

worker_process::~worker_process() {
    // An idle worker is told to stop (EOF) and given a moment to exit on its own, so whatever
    // it holds is finished properly: under `ktune profile` that is its CUPTI trace, which a
    // SIGKILL would leave unreadable. A busy or stuck one is killed.
    if (kept_ && pending_.empty()) { // it stays for the next client
        detail::daemon_connection c{to_fd_, pid_, client_lock_};
        ::close(from_fd_);
        detail::disconnect(c);
        return;
    }
    if (pending_.empty()) ktune::detail::close_input_and_reap({pid_, to_fd_, from_fd_}, 2000);
    kill_worker();
}

void worker_process::spawn() {
    spawned_at_ms_ = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now().time_since_epoch())
                         .count();
    if (keep_alive_s_ > 0) {
        detail::daemon_connection c;
        keep_note_ = detail::connect_kept_worker(argv_, keep_alive_s_, c);
        if (keep_note_.empty()) {
            kept_ = true;
            pid_ = c.pid;
            to_fd_ = c.fd;
            from_fd_ = ::dup(c.fd);
            client_lock_ = c.client_lock;
            buffer_.clear();
            ++spawned_;
            return;
        }
    }
    // Own process group: a kill reaches anything the worker started, too.
    if (auto why = ktune::detail::spawn_piped({pid_, to_fd_, from_fd_}, argv_, nullptr, 0);
        !why.empty())
        throw error(error_kind::io, why);
    buffer_.clear();
    ++spawned_;
}

void worker_process::kill_worker() noexcept {
    if (kept_) {
        // Not our child: killed (a timeout, or it faulted and exits anyway), never reaped here.
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            // Gone before a replacement connects: a dying daemon's socket could still take a
            // connection and drop it (a good candidate reported as worker_died).
            for (int i = 0; i < 2000 && detail::process_alive(pid_); ++i)
                ::usleep(1000);
        }
        detail::daemon_connection c{to_fd_, -1, client_lock_};
        ::close(from_fd_);
        detail::disconnect(c);
        pid_ = to_fd_ = from_fd_ = client_lock_ = -1;
        kept_ = false;
        return;
    }
    ktune::detail::kill_and_reap({pid_, to_fd_, from_fd_});
}

std::string worker_process::describe_exit() noexcept {
    if (pid_ <= 0) return "worker not running";
    if (kept_) return "kept worker closed its connection";
    return "worker " + ktune::detail::reap_reason({pid_, to_fd_, from_fd_});
}

void worker_process::start() {
    if (pid_ <= 0) spawn();
}

void worker_process::prepare(const candidate_request& r) {
    candidate_request p;
    p.op = r.op;
    p.rows = r.rows;
    p.cols = r.cols;
    p.dtype = r.dtype;
    p.prepare = true;
    start();
    if (!ktune::detail::write_all(to_fd_, measure::encode(p) + "\n")) {
        // Gone already: the next submit/collect sees it and replaces it.
    }
}

void worker_process::restart() {
    kill_worker();
    pending_.clear();
}

void worker_process::send_pending() noexcept {
    // A write to a worker that just died fails; collect() then sees its EOF and respawns.
    for (const auto& line : pending_) {
        try {
            write_all(to_fd_, line);
        } catch (const error&) {
            return;
        }
    }
}

void worker_process::submit(const candidate_request& r) {
    pending_.push_back(measure::encode(r) + "\n");
    if (pid_ <= 0) {
        spawn();
        send_pending();
        return;
    }
    try {
        write_all(to_fd_, pending_.back());
    } catch (const error&) {
        // The worker is gone; its answers to earlier requests may still be in the pipe, so
        // it is not replaced here but when collect() reaches its end.
    }
}

candidate_result worker_process::run(const candidate_request& r,
                                     std::chrono::milliseconds timeout) {
    while (!pending_.empty())
        (void)collect(timeout);
    submit(r);
    return collect(timeout);
}

candidate_result worker_process::collect(std::chrono::milliseconds timeout) {
    if (pending_.empty()) throw error(error_kind::usage, "worker_process::collect: nothing sent");
    candidate_result out;
    // Ends the oldest request without an answer and hands the rest to a fresh worker.
    const auto replace = [&](run_status st, std::string msg) {
        out.status = st;
        out.message = std::move(msg);
        kill_worker();
        pending_.pop_front();
        if (!pending_.empty()) {
            spawn();
            send_pending();
        }
        return out;
    };
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        if (const auto nl = buffer_.find('\n'); nl != std::string::npos) {
            const std::string line = buffer_.substr(0, nl);
            buffer_.erase(0, nl + 1);
            out = measure::decode_result(line);
            // The worker exits after a context-destroying fault; the rest go to a new one.
            if (out.fatal) return replace(out.status, out.message);
            pending_.pop_front();
            return out;
        }
        if (pid_ <= 0) return replace(run_status::worker_died, "worker not running");
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            return replace(run_status::timeout,
                           fmt::format("no answer within {} ms; worker killed", timeout.count()));
        pollfd p{from_fd_, POLLIN, 0};
        const int rc = ::poll(&p, 1, static_cast<int>(left.count()));
        if (rc < 0 && errno == EINTR) continue;
        if (rc == 0) continue; // deadline check above
        char buf[65536];
        const ssize_t n = ::read(from_fd_, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return replace(run_status::worker_died, describe_exit());
        buffer_.append(buf, static_cast<std::size_t>(n));
    }
}

} // namespace ktune::worker
