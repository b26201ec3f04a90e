// The live tune's stream (docs/perf/search.md#streaming) on the real evaluator: real NVRTC
// compiles of a built-in op on the compile pool, and a measurement worker that needs no GPU
// (tests/data/tune/fake_worker.py: a config's time is a fixed function of it).
#include "catch.hpp"
#include "tune/tune_target.hpp"
#include "tune/tuner_eval.hpp"
#include "tune/tuner_loop.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

namespace kt = ktune::tune;
namespace fs = std::filesystem;

namespace {

struct scratch {
    fs::path dir = fs::temp_directory_path() /
                   ("ktune_stream_" + std::to_string(static_cast<long>(::getpid())));
    scratch() { fs::create_directories(dir); }
    ~scratch() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};

std::size_t lines_of(const fs::path& p) {
    std::ifstream in(p);
    std::size_t n = 0;
    for (std::string l; std::getline(in, l);)
        ++n;
    return n;
}

kt::tune_report stream_tune(std::size_t budget) {
    kt::tune_request rq;
    rq.op = "softmax";
    rq.prob = {{64, 1000}, ktune::ops::dtype::f32};
    rq.strategy = "auto";
    rq.budget = budget;
    rq.seed = 3;
    rq.batch = 4; // in flight
    rq.compile_threads = 2;
    rq.compile_processes = false;
    rq.worker_command = {"/usr/bin/env", "python3",
                         std::string(KTUNE_TEST_DATA_DIR) + "/tune/fake_worker.py"};
    const auto target = kt::detail::make_target(rq, "sm_90");
    target->set_arch("sm_90");
    kt::detail::process_evaluator ev(rq, *target);
    ev.set_arch("sm_90");
    kt::tune_report rep;
    REQUIRE(rq.stream);
    REQUIRE(
        kt::detail::run_search(rq, target->make_space(), target->default_config(), ev, rep, {}));
    return rep;
}

} // namespace

TEST_CASE("a stream measures every proposed candidate once, on real compiles") {
    if (std::system("python3 -c 1 >/dev/null 2>&1") != 0) {
        WARN("python3 not found: the fake worker cannot run; skipped");
        return;
    }
    scratch s;
    ::setenv("KTUNE_CUBIN_CACHE", (s.dir / "cubins").c_str(), 1);
    const fs::path log = s.dir / "answered.txt";
    ::setenv("FAKE_WORKER_LOG", log.c_str(), 1);

    SECTION("all pass; the winner is the fastest measured") {
        const auto rep = stream_tune(20);
        std::set<std::string> seen;
        double fastest = 1e9;
        for (const auto& c : rep.candidates) {
            CHECK(c.status == kt::eval_status::ok);
            if (c.cfg != rep.baseline.cfg || !rep.default_joined) seen.insert(c.cfg.to_string());
            fastest = std::min(fastest, c.run.median_ms);
            CHECK(c.done_s > 0);
        }
        CHECK(seen.size() == 20); // each proposal measured once, none lost
        CHECK(rep.pipeline == "stream");
        CHECK(rep.in_flight == 4);
        CHECK(rep.candidates[rep.winner_index].run.median_ms == fastest);
        // The worker answered the baseline, 20 candidates and the confirmation round.
        CHECK(lines_of(log) >= 21);
    }
    SECTION("a worker that dies mid-stream costs one candidate; the rest go on") {
        ::setenv("FAKE_WORKER_DIE_AT", "6", 1);
        ::setenv("FAKE_WORKER_DIE_ONCE", (s.dir / "died").c_str(), 1);
        const auto rep = stream_tune(16);
        ::unsetenv("FAKE_WORKER_DIE_AT");
        ::unsetenv("FAKE_WORKER_DIE_ONCE");
        std::set<std::string> seen;
        int failed = 0;
        for (const auto& c : rep.candidates) {
            seen.insert(c.cfg.to_string());
            if (c.status != kt::eval_status::ok) ++failed;
        }
        CHECK(seen.size() >= 16);
        // The first worker dies at its 6th request (the baseline was its 1st): that candidate
        // fails, the ones queued behind it go to a fresh worker.
        CHECK(fs::exists(s.dir / "died"));
        CHECK(failed == 1);
        CHECK(rep.candidates.size() >= 16);
    }
    ::unsetenv("FAKE_WORKER_LOG");
    ::unsetenv("KTUNE_CUBIN_CACHE");
}
