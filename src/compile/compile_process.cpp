#include "compile/compile_process.hpp"

#include "compile/compile_private.hpp"
#include "compile/compile_wire.hpp"
#include "core/cache_files.hpp"
#include "core/child_process.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <poll.h>
#include <unistd.h>

extern char** environ;

namespace ktune::compile::detail {

using ktune::detail::child_fds;
using ktune::detail::close_input_and_reap;
using ktune::detail::kill_and_reap;
using ktune::detail::read_line;
using ktune::detail::reap_reason;
using ktune::detail::spawn_piped;
using ktune::detail::write_all;

compile_process::compile_process(std::vector<std::string> argv,
                                 std::chrono::milliseconds batch_timeout)
    : argv_(std::move(argv)), timeout_(batch_timeout) {
    std::signal(SIGPIPE, SIG_IGN); // a server dying mid-write must not kill the client
}

compile_process::~compile_process() {
    // EOF first: a server exits on its own within milliseconds (so anything it holds, e.g. a
    // profiler's trace under `ktune profile`, is finished); a stuck one is killed.
    close_input_and_reap({pid_, to_fd_, from_fd_}, 500);
    stop();
}

void compile_process::stop() noexcept {
    kill_and_reap({pid_, to_fd_, from_fd_});
    buffer_.clear();
}

bool compile_process::start() {
    if (pid_ > 0) return true;
    if (argv_.empty()) {
        why_ = "no compile server command";
        return false;
    }
    std::vector<std::string> env;
    for (char** e = environ; e && *e; ++e)
        if (std::strncmp(*e, worker_role_env, std::strlen(worker_role_env)) != 0)
            env.emplace_back(*e);
    env.push_back(fmt::format("{}=compile", worker_role_env));
    // Compiling is throughput work; the measurement worker and the tuner are the critical path
    // and must never wait for a core (on the H200, 16 servers starting beside the worker doubled
    // its context set-up: 0.13 -> 0.25 s), hence nice 10.
    why_ = spawn_piped({pid_, to_fd_, from_fd_}, argv_, &env, 10);
    if (!why_.empty()) return false;
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
            why_ = reap_reason({pid_, to_fd_, from_fd_});
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
        why_ = reap_reason({pid_, to_fd_, from_fd_});
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
        if (r.ok) r.cubin = ktune::detail::read_file(r.cubin_path);
    return out;
}

} // namespace ktune::compile::detail
