#pragma once
// Run-time compilation of candidate kernels with NVRTC, a cubin cache on disk and a pool that
// compiles on every core while the GPU measures earlier candidates.
//
//   ktune::measure::compile_pool pool;                       // hardware_concurrency threads
//   auto f = pool.submit({source, "ktune_op_kernel", "sm_90"});
//   ktune::measure::compile_result r = f.get();              // never throws: ok or log
//
// A cubin is cached under a hash of (source, name expression, options, arch, NVRTC version):
// a second tune of the same op compiles nothing.

#include "ktune/core/env.hpp"
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ktune::compile {

struct compile_request {
    std::string source;
    std::string name_expression;      ///< e.g. "ktune_op_kernel" or "&my_kernel<128>"
    std::string arch = "sm_90";       ///< "sm_90a" for wgmma/setmaxnreg code
    std::vector<std::string> options; ///< extra NVRTC options, e.g. "-DKTUNE_INJECT=1"
    bool operator==(const compile_request&) const = default;
};

struct compile_result {
    bool ok = false;
    std::string cubin;        ///< machine code for arch
    std::string lowered_name; ///< the mangled name to load from the module
    std::string log;          ///< NVRTC's log (warnings on success, errors on failure)
    double compile_ms = 0;    ///< 0 for a cache hit
    bool cache_hit = false;
    std::filesystem::path cubin_path; ///< where the cubin lies on disk ("" without a cache)
};

/// NVRTC version as major*1000 + minor*10 (12080 for 12.8), part of the cubin key.
int nvrtc_version();

/// Compile once, no cache. Throws error{nvrtc} carrying the compile log on failure.
compile_result nvrtc_compile(const compile_request& r);

/// Content-addressed cubins under a directory; writes are atomic (temp file + rename), so many
/// processes may share one directory.
class cubin_cache {
public:
    /// $KTUNE_CUBIN_CACHE, else $XDG_CACHE_HOME/ktune/cubin, else ~/.cache/ktune/cubin.
    static std::filesystem::path default_dir();
    explicit cubin_cache(std::filesystem::path dir);

    /// 16 hex digits of a 64-bit FNV-1a over every input that changes the machine code.
    [[nodiscard]] static std::string key(const compile_request& r);
    [[nodiscard]] std::optional<compile_result> get(const compile_request& r) const;
    /// Stores r's cubin and lowered name; returns the cubin's path.
    std::filesystem::path put(const compile_request& r, const compile_result& c) const;
    [[nodiscard]] const std::filesystem::path& dir() const noexcept { return dir_; }

private:
    std::filesystem::path dir_;
};

/// Cache lookup, else compile and store. Never throws for a compile error: ok=false + log.
compile_result compile_cached(const compile_request& r, const cubin_cache* cache);

/// Several requests in one NVRTC program, so NVRTC's fixed cost per program is paid once per
/// batch (docs/perf/tune.md has the split). Requests that differ only in their name expression
/// (a user kernel's template instantiations) share one copy of their source
/// (docs/perf/kernel.md#compile-cost-per-candidate); other sources are each wrapped in their own
/// namespace (macros #undef'd after it, the `extern "C"` kernel found by name expression). The
/// cubin holds the whole program and is cached under every request's key. Cache hits are
/// answered first; requests that cannot share a program (an #include or a name expression
/// that is not a plain identifier in a namespace, other arch/options) and every request of a
/// program that fails to compile are compiled alone, so each failure keeps its own log. Results
/// in request order; never throws for a compile error.
std::vector<compile_result> compile_batch(const std::vector<compile_request>& rs,
                                          const cubin_cache* cache);

/// How to cut requests into compile_batch calls of at most per_program each: requests that
/// differ only in their name expression go together first (one program, as they are), the
/// rest in order. Indices into rs, each once, groups in the order of their first request.
///
///   for (const auto& g : program_groups(requests, 2)) pool.submit_batch(pick(requests, g));
std::vector<std::vector<std::size_t>> program_groups(const std::vector<compile_request>& rs,
                                                     std::size_t per_program);

/// Where a pool compiles. NVRTC serialises much of its work inside one process (on 16 threads
/// each candidate cost ~3x a single thread's CPU: docs/perf/tune.md), so `processes` gives each
/// pool slot its own compile-server process (ktune-worker in compile mode, compile_server_main)
/// that writes cubins into the cubin cache and answers their paths.
enum class compile_mode : std::uint8_t { threads, processes };

struct compile_pool_options {
    unsigned workers = 0; ///< pool slots; 0: hardware_concurrency
    compile_mode mode = compile_mode::processes;
    /// argv of a compile server: a binary that calls worker_main (which turns into
    /// compile_server_main when $KTUNE_WORKER_ROLE=compile). Empty: the ktune-worker executable
    /// (worker::default_worker_command).
    std::vector<std::string> server_command;
    /// A batch that takes longer is abandoned (server killed): compile_error, never a hang.
    std::chrono::milliseconds batch_timeout{120000};
    /// Start a slot's server at its first cubin-cache miss (a job all in the cache is answered
    /// by the slot itself); false: every server at construction
    /// (docs/perf/tune.md#compile-servers).
    bool lazy_servers = true;
};

/// The environment variable (value "compile") that makes worker_main serve compiles.
inline constexpr const char* worker_role_env = ktune::env::worker_role;

/// A compile server: reads JSON lines {"cache": dir, "requests": [...]} from in_fd, compiles each
/// line's requests as one compile_batch into the cubin cache at dir and answers one JSON line of
/// results (cubin paths, not cubins). Says {"ready": ...} first. Returns 0 at EOF.
int compile_server_main(int in_fd, int out_fd);

/// A fixed set of slots compiling requests (or batches of them) in submission order, each in
/// this process (threads) or through its own compile-server process. A server that cannot be
/// started leaves its slot compiling in-process; one that dies or hangs mid-batch gives that
/// batch compile_error results (never a lost request) and is replaced for the next batch.
class compile_pool {
public:
    explicit compile_pool(unsigned threads = 0, std::optional<cubin_cache> cache = std::nullopt);
    /// processes mode needs a cache (cubins travel through it): without one it uses threads.
    compile_pool(compile_pool_options o, std::optional<cubin_cache> cache);
    ~compile_pool();
    compile_pool(const compile_pool&) = delete;
    compile_pool& operator=(const compile_pool&) = delete;

    std::future<compile_result> submit(compile_request r);
    /// One program for the batch (compile_batch); one future per request, same order.
    std::vector<std::future<compile_result>> submit_batch(std::vector<compile_request> rs);
    [[nodiscard]] unsigned threads() const noexcept;
    /// Compile servers started so far (0 in threads mode), and those that died mid-batch.
    [[nodiscard]] int servers_started() const noexcept;
    [[nodiscard]] int server_failures() const noexcept;
    /// Slots that fell back to in-process compiles because their server would not start.
    [[nodiscard]] int fallback_slots() const noexcept;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace ktune::compile
