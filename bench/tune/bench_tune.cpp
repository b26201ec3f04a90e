// GPU benchmarks of `ktune tune <op>` (bench/tune/gpu_step.sh runs them on the GPU machine):
//   bench_tune tune   OP SHAPE DTYPE [BUDGET]        one tune, no cache read; summary + JSON line
//   bench_tune brute  OP SHAPE DTYPE OUT.json        every valid config, >= 16 samples each, saved
//                                                    in Kernel Tuner's cache format
//   bench_tune repeat OP SHAPE DTYPE N [BUDGET]      N independent tunes: do winners share a tie
//   band? bench_tune faults OP SHAPE DTYPE RATE [BUDGET]   fault injection: wrong winners,
//   completion
//   bench_tune compile OP SHAPE DTYPE N [THREADS]   NVRTC ms per candidate, 1/2/4/8 per program
//   bench_tune compile_scaling OP SHAPE DTYPE N W,W  pool throughput: threads vs processes
//   bench_tune session OP SHAPE DTYPE N [BUDGET]     N tunes on one worker + compile servers
// Candidates run in ktune-worker. KTUNE_BENCH_PER_PROGRAM=1 and
// KTUNE_BENCH_AHEAD=0 switch off batched compiles and compile-ahead (before/after runs);
// KTUNE_BENCH_COMPILE=threads compiles in threads instead of compile-server processes;
// KTUNE_BENCH_SETUP_OFF=prepare,lazy,early,record switches set-up overlaps off (tune_request);
// KTUNE_BENCH_KEEP_WORKER=S measures on a kept worker that waits S seconds between tunes.
#include "bench_compile.hpp"
#include "ktune/core/device.hpp"
#include "ktune/core/error.hpp"
#include "ktune/tune/tuner.hpp"
#include "ktune/tune/tuner_json.hpp"
#include "ktune/worker/worker.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>

using namespace ktune;
using json = nlohmann::ordered_json;

namespace {

tune::tune_request request(char** argv, std::size_t budget) {
    tune::tune_request rq;
    rq.op = argv[2];
    rq.prob = {ops::parse_shape(argv[3]), ops::parse_dtype(argv[4])};
    rq.budget = budget;
    rq.read_cache = false;
    rq.cache_file = "bench_tune_cache.json";
    if (const char* k = std::getenv("KTUNE_BENCH_PER_PROGRAM"))
        rq.candidates_per_program = std::stoul(k);
    if (const char* a = std::getenv("KTUNE_BENCH_AHEAD")) rq.compile_ahead = std::string(a) != "0";
    if (const char* c = std::getenv("KTUNE_BENCH_COMPILE"))
        rq.compile_processes = std::string(c) != "threads";
    if (const char* k = std::getenv("KTUNE_BENCH_KEEP_WORKER")) rq.keep_worker_s = std::atoi(k);
    // Before/after of the set-up overlaps: a comma list of those to switch off.
    if (const char* off = std::getenv("KTUNE_BENCH_SETUP_OFF")) {
        const std::string o = off;
        rq.prepare_worker = o.find("prepare") == std::string::npos;
        rq.lazy_compile_servers = o.find("lazy") == std::string::npos;
        rq.early_worker = o.find("early") == std::string::npos;
        rq.device_record = o.find("record") == std::string::npos;
    }
    return rq;
}

double gbs(const tune::tune_report& r, double ms) {
    return r.bytes / (ms * 1e6);
}

json summary(const tune::tune_report& r) {
    std::map<std::string, int> st;
    double overhead_ms = 0;
    double worker = 0, load = 0, check = 0, timing = 0;
    for (const auto& c : r.candidates) {
        ++st[std::string(tune::to_string(c.status))];
        worker += c.run.worker_ms;
        load += c.run.load_ms;
        check += c.run.check_ms;
        timing += c.run.timing_ms;
    }
    const double n = static_cast<double>(std::max<std::size_t>(1, r.candidates.size()));
    // Framework overhead per candidate: wall time not spent compiling-bound or on the GPU,
    // i.e. (wall - GPU busy) / candidates. An upper bound: it also holds check time on the GPU.
    overhead_ms = (r.wall_s - r.gpu_busy_s) * 1000 / std::max<std::size_t>(1, r.candidates.size());
    json j{{"candidates", r.candidates.size()},
           {"statuses", st},
           {"wall_s", r.wall_s},
           {"gpu_busy_s", r.gpu_busy_s},
           {"gpu_busy_pct", 100 * r.gpu_busy_s / r.wall_s},
           {"compile_cpu_s", r.compile_s},
           {"compile_wait_s", r.compile_wait_s},
           {"setup_s", r.setup_s},
           {"confirm_s", r.confirm_s},
           // The search loop alone (wall minus set-up and confirmation): how busy the pipeline
           // keeps the GPU once running, and the framework's time per candidate in it.
           {"loop_busy_pct", 100 * (r.gpu_busy_s - r.confirm_busy_s) /
                                 std::max(1e-9, r.wall_s - r.setup_s - r.confirm_s)},
           {"loop_overhead_ms_per_candidate",
            1000 * ((r.wall_s - r.setup_s - r.confirm_s) - (r.gpu_busy_s - r.confirm_busy_s)) / n},
           {"worker_setup_s", r.worker_setup_s},
           {"cubin_cache_hits", std::count_if(r.candidates.begin(), r.candidates.end(),
                                              [](const auto& c) { return c.cubin_cache_hit; })},
           {"non_gpu_ms_per_candidate", overhead_ms},
           {"workers_spawned", r.workers_spawned},
           {"worker_kept", r.worker_kept},
           {"compile_servers", r.compile_servers},
           {"compile_server_failures", r.compile_server_failures},
           {"copy_gbs_cached", r.copy_gbs_cached},
           {"per_candidate_ms",
            {{"worker", worker / n},
             {"load", load / n},
             {"check", check / n},
             {"timing", timing / n},
             {"outside_worker", r.wall_s * 1000 / n - worker / n}}},
           {"copy_gbs", r.copy_gbs},
           {"tied", r.tied}};
    // The set-up split: each milestone in ms since the tune began (worker: ones are its own).
    json marks = json::object();
    for (const auto& [what, at_s] : r.setup_marks)
        marks[what] = 1000 * at_s;
    j["setup_ms"] = marks;
    if (!r.winner.cfg.empty()) {
        const double ms = r.winner.time.median_us / 1000;
        j["winner"] = r.winner.cfg.to_string();
        j["median_ms"] = ms;
        j["ci_ms"] = {r.winner.time.ci_low_us / 1000, r.winner.time.ci_high_us / 1000};
        j["gbs"] = gbs(r, ms);
        j["pct_copy"] = 100 * gbs(r, ms) / r.copy_gbs;
    }
    if (r.baseline.status == tune::eval_status::ok) {
        j["default_ms"] = r.baseline.run.median_ms;
        j["default_pct_copy"] = 100 * gbs(r, r.baseline.run.median_ms) / r.copy_gbs;
    }
    return j;
}

int brute(char** argv) {
    tune::tune_request rq = request(argv, 1u << 20);
    rq.strategy = "exhaustive";
    rq.write_cache = false;
    rq.policy.min_samples = 16;
    rq.policy.max_samples = 64;
    const auto r = tune::tune_op(rq);
    std::ofstream(argv[5]) << tune::recorded_space_json(r, rq);
    fmt::print("{}\n", json{{"mode", "brute"},
                            {"op", rq.op},
                            {"shape", argv[3]},
                            {"dtype", argv[4]},
                            {"summary", summary(r)}}
                           .dump());
    return 0;
}

int repeat(char** argv, int n, std::size_t budget) {
    std::vector<tune::tune_report> rs;
    for (int i = 0; i < n; ++i) {
        tune::tune_request rq = request(argv, budget);
        rq.seed = static_cast<std::uint64_t>(i + 1);
        rq.write_cache = false;
        rs.push_back(tune::tune_op(rq));
        fmt::print(stderr, "run {}: {} {:.4f} ms [{:.4f}, {:.4f}]\n", i,
                   rs.back().winner.cfg.to_string(), rs.back().winner.time.median_us / 1000,
                   rs.back().winner.time.ci_low_us / 1000, rs.back().winner.time.ci_high_us / 1000);
    }
    // One tie band: every winner's CI overlaps the CI of the fastest winner.
    double best_hi = 1e300, best_lo = 0;
    for (const auto& r : rs)
        if (r.winner.time.ci_high_us < best_hi) {
            best_hi = r.winner.time.ci_high_us;
            best_lo = r.winner.time.ci_low_us;
        }
    int inside = 0;
    std::map<std::string, int> winners;
    double lo = 1e300, hi = 0;
    for (const auto& r : rs) {
        if (r.winner.time.ci_low_us <= best_hi && r.winner.time.ci_high_us >= best_lo) ++inside;
        ++winners[r.winner.cfg.to_string()];
        lo = std::min(lo, r.winner.time.median_us);
        hi = std::max(hi, r.winner.time.median_us);
    }
    fmt::print("{}\n", json{{"mode", "repeat"},
                            {"op", argv[2]},
                            {"shape", argv[3]},
                            {"dtype", argv[4]},
                            {"runs", n},
                            {"in_one_tie_band", inside},
                            {"distinct_winners", winners},
                            {"median_us_range", {lo, hi}},
                            {"last", summary(rs.back())}}
                           .dump());
    return inside == n ? 0 : 1;
}

/// N tunes in one tune_session (seeds 1..N): the first pays the start-up, the later ones do not.
int session(char** argv, int n, std::size_t budget) {
    tune::tune_request setup = request(argv, budget);
    tune::tune_session s(setup);
    for (int i = 0; i < n; ++i) {
        tune::tune_request rq = request(argv, budget);
        rq.seed = static_cast<std::uint64_t>(i + 1);
        rq.write_cache = false;
        const auto r = s.tune(rq);
        fmt::print("{}\n", json{{"mode", fmt::format("session_{}", i + 1)},
                                {"op", argv[2]},
                                {"shape", argv[3]},
                                {"dtype", argv[4]},
                                {"summary", summary(r)}}
                               .dump());
        std::fflush(stdout);
    }
    return 0;
}

int faults(char** argv, double rate, std::size_t budget) {
    tune::tune_request rq = request(argv, budget);
    rq.fault_injection = rate;
    rq.write_cache = false;
    rq.candidate_timeout = std::chrono::milliseconds(3000);
    const auto r = tune::tune_op(rq);
    int injected = 0, caught = 0;
    for (const auto& c : r.candidates)
        if (c.injected != tune::injected_fault::none) {
            ++injected;
            if (c.status != tune::eval_status::ok) ++caught;
        }
    const bool wrong_winner = !r.winner.cfg.empty() &&
                              r.candidates[r.winner_index].injected != tune::injected_fault::none;
    fmt::print("{}\n", json{{"mode", "faults"},
                            {"op", argv[2]},
                            {"shape", argv[3]},
                            {"dtype", argv[4]},
                            {"rate", rate},
                            {"injected", injected},
                            {"caught", caught},
                            {"wrong_winner", wrong_winner},
                            {"summary", summary(r)}}
                           .dump());
    return wrong_winner || r.winner.cfg.empty() ? 1 : 0;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 5) {
        fmt::print(stderr,
                   "usage: bench_tune tune|brute|repeat|faults|compile OP SHAPE DTYPE ...\n");
        return 2;
    }
    try {
        const std::string mode = argv[1];
        if (mode == "tune") {
            auto rq = request(argv, argc > 5 ? std::stoul(argv[5]) : 0);
            const auto r = tune::tune_op(rq);
            fmt::print("{}\n", json{{"mode", "tune"},
                                    {"op", argv[2]},
                                    {"shape", argv[3]},
                                    {"dtype", argv[4]},
                                    {"summary", summary(r)}}
                                   .dump());
            return r.winner.cfg.empty() ? 1 : 0;
        }
        if (mode == "brute" && argc > 5) return brute(argv);
        if (mode == "compile" && argc > 5) return bench::compile_costs(argv, argc);
        if (mode == "compile_scaling" && argc > 5) return bench::compile_scaling(argv, argc);
        if (mode == "session" && argc > 5)
            return session(argv, std::stoi(argv[5]), argc > 6 ? std::stoul(argv[6]) : 0);
        if (mode == "repeat" && argc > 5)
            return repeat(argv, std::stoi(argv[5]), argc > 6 ? std::stoul(argv[6]) : 0);
        if (mode == "faults" && argc > 5)
            return faults(argv, std::stod(argv[5]), argc > 6 ? std::stoul(argv[6]) : 0);
        fmt::print(stderr, "unknown mode or missing argument\n");
        return 2;
    } catch (const error& e) {
        fmt::print(stderr, "bench_tune: {} error: {}\n", to_string(e.kind()), e.what());
        return 2;
    }
}
