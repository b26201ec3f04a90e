// Compile throughput of the pool, threads vs compile-server processes, CPU only (NVRTC needs no
// GPU): N candidates of an op's space, two per program, into a fresh cubin cache each run.
//   bench_tune compile_scaling OP SHAPE DTYPE N W1,W2,...   one JSON line per (mode, W)
// CPU is this process's (threads) or its reaped children's (processes) user + system time.
#include "bench_compile.hpp"

#include "ktune/compile/compile.hpp"
#include "ktune/ops/op.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <sstream>
#include <sys/resource.h>
#include <unistd.h>

namespace ktune::bench {
namespace {

double cpu_s(int who) {
    rusage u{};
    getrusage(who, &u);
    const auto s = [](timeval t) { return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6; };
    return s(u.ru_utime) + s(u.ru_stime);
}

} // namespace

int compile_scaling(char** argv, int argc) {
    const ops::op& o = ops::find_op(argv[2]);
    const ops::problem p{ops::parse_shape(argv[3]), ops::parse_dtype(argv[4])};
    const auto cfgs = o.enumerate(p);
    const std::size_t n = std::min<std::size_t>(std::stoul(argv[5]), cfgs.size());
    std::vector<unsigned> widths;
    std::stringstream ss(argc > 6 ? argv[6] : "1,2");
    for (std::string w; std::getline(ss, w, ',');)
        widths.push_back(static_cast<unsigned>(std::stoul(w)));
    std::vector<compile::compile_request> rs;
    for (std::size_t i = 0; i < n; ++i)
        rs.push_back({o.source(cfgs[i], p), std::string(ops::kernel_name), "sm_90a", {}});
    int run = 0;
    for (unsigned w : widths)
        for (auto mode : {compile::compile_mode::threads, compile::compile_mode::processes}) {
            const auto dir = std::filesystem::temp_directory_path() /
                             fmt::format("ktune-scaling-{}-{}", getpid(), run++);
            const double self0 = cpu_s(RUSAGE_SELF), kids0 = cpu_s(RUSAGE_CHILDREN);
            const auto t0 = std::chrono::steady_clock::now();
            int ok = 0, servers = 0;
            double ready_ms = 0;
            {
                compile::compile_pool_options po;
                po.workers = w;
                po.mode = mode;
                compile::compile_pool pool(po, compile::cubin_cache(dir));
                // A one-candidate batch per slot first would measure start-up; instead the
                // whole set is submitted at once, as the tuner's first batches are.
                std::vector<std::future<compile::compile_result>> fs;
                for (std::size_t i = 0; i < n; i += 2) {
                    std::vector<compile::compile_request> g(
                        rs.begin() + static_cast<long>(i),
                        rs.begin() + static_cast<long>(std::min(n, i + 2)));
                    for (auto& f : pool.submit_batch(std::move(g)))
                        fs.push_back(std::move(f));
                }
                for (auto& f : fs) {
                    const auto r = f.get();
                    ok += r.ok;
                    if (ready_ms == 0)
                        ready_ms = std::chrono::duration<double, std::milli>(
                                       std::chrono::steady_clock::now() - t0)
                                       .count();
                }
                servers = pool.servers_started();
            }
            const double wall =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            const double cpu = mode == compile::compile_mode::threads
                                   ? cpu_s(RUSAGE_SELF) - self0
                                   : cpu_s(RUSAGE_CHILDREN) - kids0;
            std::filesystem::remove_all(dir);
            fmt::print(
                "{}\n",
                nlohmann::ordered_json{
                    {"mode", "compile_scaling"},
                    {"op", argv[2]},
                    {"shape", argv[3]},
                    {"dtype", argv[4]},
                    {"pool", mode == compile::compile_mode::threads ? "threads" : "processes"},
                    {"width", w},
                    {"servers", servers},
                    {"candidates", n},
                    {"ok", ok},
                    {"wall_s", wall},
                    {"candidates_per_s", static_cast<double>(n) / wall},
                    {"cpu_ms_per_candidate", 1000 * cpu / static_cast<double>(n)},
                    {"first_result_ms", ready_ms}}
                    .dump());
            std::fflush(stdout);
        }
    return 0;
}

} // namespace ktune::bench
