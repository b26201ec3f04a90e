// The op tuner on a real GPU: every built-in op and dtype tunes end to end, every candidate the
// search proposes passes the check against the independent reference kernel, injected faults
// are caught without ending the tune, and a second tune is a cache hit.
#include "catch.hpp"

#include "ktune/tune/tuner.hpp"

#include <filesystem>
#include <unistd.h>

using namespace ktune;

namespace {
std::filesystem::path temp_cache() {
    auto p = std::filesystem::temp_directory_path() /
             ("ktune_gpu_tuner_" + std::to_string(getpid()) + ".json");
    std::filesystem::remove(p);
    return p;
}
tune::tune_request small(const char* op, ops::dtype t, std::int64_t rows, std::int64_t cols) {
    tune::tune_request rq;
    rq.op = op;
    rq.prob = {{rows, cols}, t};
    rq.budget = 12;
    rq.strategy = "random";
    rq.cache_file = temp_cache();
    rq.read_cache = false;
    rq.policy.min_samples = 8;
    rq.policy.max_samples = 16;
    return rq;
}
} // namespace

TEST_CASE("every built-in op and dtype tunes; every honest candidate passes the check") {
    for (const ops::op* o : ops::all_ops()) {
        for (ops::dtype t : {ops::dtype::f32, ops::dtype::bf16}) {
            // Odd row counts exercise the tail handling of the row groups and tiles.
            auto rq = small(std::string(o->name()).c_str(), t, 1000, 2048);
            INFO(rq.op << " " << ops::to_string(t));
            const auto r = tune::tune_op(rq);
            REQUIRE(r.candidates.size() == 12 + (r.default_joined ? 1 : 0));
            CHECK(r.baseline.status == tune::eval_status::ok);
            for (const auto& c : r.candidates) {
                INFO(c.cfg.to_string() << ": " << c.message);
                CHECK(c.status == tune::eval_status::ok);
                CHECK(c.run.samples_ms.size() >= 8);
                CHECK(c.run.ci_lo_ms <= c.run.median_ms);
                CHECK(c.run.median_ms <= c.run.ci_hi_ms);
            }
            CHECK_FALSE(r.winner.cfg.empty());
            std::filesystem::remove(rq.cache_file);
        }
    }
}

TEST_CASE("injected wrong results, illegal addresses and hangs never win nor stop the tune") {
    auto rq = small("softmax", ops::dtype::f32, 512, 4096);
    rq.budget = 24;
    rq.fault_injection = 0.5;
    rq.candidate_timeout = std::chrono::milliseconds(2000);
    const auto r = tune::tune_op(rq);
    REQUIRE(r.candidates.size() == 24 + (r.default_joined ? 1 : 0));
    int injected = 0;
    for (const auto& c : r.candidates) {
        INFO(c.cfg.to_string() << ": " << c.message);
        if (c.injected == tune::injected_fault::none) {
            CHECK(c.status == tune::eval_status::ok);
            continue;
        }
        ++injected;
        CHECK(c.status != tune::eval_status::ok);
        if (c.injected == tune::injected_fault::wrong_element)
            CHECK(c.status == tune::eval_status::wrong_result);
        if (c.injected == tune::injected_fault::hang) CHECK(c.status == tune::eval_status::timeout);
    }
    CHECK(injected >= 4);
    REQUIRE_FALSE(r.winner.cfg.empty());
    CHECK(r.candidates[r.winner_index].injected == tune::injected_fault::none);
    std::filesystem::remove(rq.cache_file);
}

TEST_CASE("the winner is cached: a second tune of the same key measures nothing") {
    auto rq = small("rowsum", ops::dtype::bf16, 4096, 1024);
    rq.budget = 6;
    const auto first = tune::tune_op(rq);
    REQUIRE_FALSE(first.winner.cfg.empty());
    rq.read_cache = true;
    rq.prob.shape.rows = 3000; // same bucket (4096 rows)
    const auto second = tune::tune_op(rq);
    CHECK(second.cache_hit);
    CHECK(second.candidates.empty());
    CHECK(second.winner.cfg == first.winner.cfg);
    std::filesystem::remove(rq.cache_file);
}
