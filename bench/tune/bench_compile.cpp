// NVRTC cost per candidate, CPU only (no GPU needed): the first N configs of an op's space
// compiled without a cubin cache, one program per candidate and K candidates per program,
// single-threaded (CPU ms per candidate) and on a pool of T threads (wall ms per candidate).
//   bench_tune compile OP SHAPE DTYPE N [THREADS]     one JSON line per K
#include "bench_compile.hpp"

#include "ktune/compile/compile.hpp"
#include "ktune/ops/op.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <future>
#include <string>
#include <thread>

namespace ktune::bench {

int compile_costs(char** argv, int argc) {
    const ops::op& o = ops::find_op(argv[2]);
    const ops::problem p{ops::parse_shape(argv[3]), ops::parse_dtype(argv[4])};
    const auto cfgs = o.enumerate(p);
    const std::size_t n = std::min<std::size_t>(std::stoul(argv[5]), cfgs.size());
    const unsigned threads =
        argc > 6 ? static_cast<unsigned>(std::stoul(argv[6])) : std::thread::hardware_concurrency();
    std::vector<compile::compile_request> rs;
    for (std::size_t i = 0; i < n; ++i)
        rs.push_back({o.source(cfgs[i], p), std::string(ops::kernel_name), "sm_90a", {}});
    (void)compile::compile_batch({rs.front()}, nullptr); // load NVRTC before timing
    const char* minimal = std::getenv("KTUNE_NVRTC_MINIMAL");
    for (std::size_t k : {1, 2, 4, 8}) {
        // One thread: CPU cost per candidate.
        const auto t0 = std::chrono::steady_clock::now();
        int ok = 0;
        for (std::size_t i = 0; i < n; i += k) {
            std::vector<compile::compile_request> g(rs.begin() + static_cast<long>(i),
                                                    rs.begin() +
                                                        static_cast<long>(std::min(n, i + k)));
            for (const auto& r : compile::compile_batch(g, nullptr))
                ok += r.ok;
        }
        const double cpu =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count();
        // The pool: throughput on every thread.
        const auto t1 = std::chrono::steady_clock::now();
        {
            compile::compile_pool pool(threads);
            std::vector<std::future<compile::compile_result>> fs;
            for (std::size_t i = 0; i < n; i += k) {
                std::vector<compile::compile_request> g(rs.begin() + static_cast<long>(i),
                                                        rs.begin() +
                                                            static_cast<long>(std::min(n, i + k)));
                for (auto& f : pool.submit_batch(std::move(g)))
                    fs.push_back(std::move(f));
            }
            for (auto& f : fs)
                (void)f.get();
        }
        const double wall =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1)
                .count();
        fmt::print(
            "{}\n",
            nlohmann::ordered_json{{"mode", "compile"},
                                   {"op", argv[2]},
                                   {"shape", argv[3]},
                                   {"dtype", argv[4]},
                                   {"candidates", n},
                                   {"per_program", k},
                                   {"minimal", !(minimal && std::string(minimal) == "0")},
                                   {"ok", ok},
                                   {"cpu_ms_per_candidate", cpu / static_cast<double>(n)},
                                   {"threads", threads},
                                   {"pool_wall_ms_per_candidate", wall / static_cast<double>(n)}}
                .dump());
    }
    return 0;
}

} // namespace ktune::bench
