#pragma once
// One compile-server process driven by one pool slot (compile_pool.cpp): spawned with
// $KTUNE_WORKER_ROLE=compile, one batch at a time over its pipes. A server that dies or hangs
// mid-batch fails that batch (compile_error results naming why) and is replaced on the next.
#include "ktune/compile/compile.hpp"

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ktune::compile::detail {

class compile_process {
public:
    compile_process(std::vector<std::string> argv, std::chrono::milliseconds batch_timeout);
    ~compile_process();
    compile_process(const compile_process&) = delete;
    compile_process& operator=(const compile_process&) = delete;

    /// Spawns the server (if none runs) and waits for its ready line. False, with the reason in
    /// why(), when it cannot be started: the caller compiles in-process instead.
    bool start();
    /// Compiles rs into the cubin cache at dir. nullopt: no server could be started. A server
    /// that dies or times out: every result ok=false with the reason (and the server is gone).
    std::optional<std::vector<compile_result>> compile(const std::vector<compile_request>& rs,
                                                       const std::filesystem::path& dir);
    [[nodiscard]] const std::string& why() const noexcept { return why_; }
    [[nodiscard]] int started() const noexcept { return started_; }
    [[nodiscard]] int failures() const noexcept { return failures_; }

private:
    /// The next line from the server within the deadline; nullopt on EOF or timeout (why_ set).
    std::optional<std::string> read_line(std::chrono::steady_clock::time_point deadline);
    void stop() noexcept;

    std::vector<std::string> argv_;
    std::chrono::milliseconds timeout_;
    int pid_ = -1, to_fd_ = -1, from_fd_ = -1;
    std::string buffer_, why_;
    int started_ = 0, failures_ = 0;
};

} // namespace ktune::compile::detail
