// The live tune's stream (docs/perf/search.md#streaming) on the real evaluator: real NVRTC
// compiles of a built-in op on the compile pool, and a measurement worker that needs no GPU
// (tests/data/tune/fake_worker.py: a config's time is a fixed function of it).
#include "catch.hpp"
#include "ktune/tune/searcher.hpp"
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

kt::tune_request stream_request(std::size_t budget) {
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
    return rq;
}

kt::tune_report stream_tune(std::size_t budget) {
    const kt::tune_request rq = stream_request(budget);
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

bool have_python() {
    if (std::system("python3 -c 1 >/dev/null 2>&1") == 0) return true;
    WARN("python3 not found: the fake worker cannot run; skipped");
    return false;
}

} // namespace

TEST_CASE("a stream measures every proposed candidate once, on real compiles") {
    if (!have_python()) return;
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

TEST_CASE("a stream asks for one config a result and never holds more than its window") {
    // What tells a stream from batches: after the first `window` configs, each result frees one
    // place and `next` is asked for one config (batches would ask for a whole window at a time),
    // and at most `window` configs are ever compiling or on the worker.
    if (!have_python()) return;
    scratch s;
    ::setenv("KTUNE_CUBIN_CACHE", (s.dir / "cubins").c_str(), 1);
    const kt::tune_request rq = stream_request(24);
    const auto target = kt::detail::make_target(rq, "sm_90");
    target->set_arch("sm_90");
    kt::detail::process_evaluator ev(rq, *target);
    ev.set_arch("sm_90");
    const auto sp = target->make_space();
    auto order = kt::make_searcher("exhaustive");
    kt::search_options so;
    so.budget = 24;
    order->init(sp, so);
    std::vector<std::size_t> asked;
    std::size_t issued = 0, finished = 0, most = 0;
    ev.stream(
        4, nullptr,
        [&](std::size_t n) {
            asked.push_back(n);
            std::vector<kt::candidate_record> recs;
            if (order->done()) return recs;
            for (const auto& p : order->propose(n)) {
                kt::candidate_record r;
                r.cfg = sp.to_config(p);
                recs.push_back(std::move(r));
            }
            issued += recs.size();
            most = std::max(most, issued - finished);
            return recs;
        },
        [&](kt::candidate_record r) {
            ++finished;
            CHECK(r.status == kt::eval_status::ok);
        });
    ::unsetenv("KTUNE_CUBIN_CACHE");
    CHECK(finished == 24);
    CHECK(most == 4);
    REQUIRE(asked.size() >= 21);
    CHECK(asked.front() == 4);
    CHECK(std::all_of(asked.begin() + 1, asked.end(), [](std::size_t n) { return n == 1; }));
}
