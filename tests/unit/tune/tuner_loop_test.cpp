// The tune loop on the CPU (tuner_loop.hpp) with a scripted evaluator: the confirmation round,
// the default joining, ties, failures, the cache write, and the decision across GPUs.
#include "catch.hpp"
#include "ktune/cache/index.hpp"
#include "tune/tuner_loop.hpp"
#include "tuner_fake.hpp"

#include <filesystem>
#include <unistd.h>

namespace kt = ktune::tune;
using kt::test::fake_evaluator;

namespace {

kt::space eight() {
    return kt::space({kt::axis::list("x", std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7, 8})});
}

std::string cfg(std::int64_t x) {
    ktune::config c;
    c.set("x", x);
    return c.to_string();
}
ktune::config config_of(std::int64_t x) {
    ktune::config c;
    c.set("x", x);
    return c;
}

kt::tune_request request(std::size_t budget, std::string strategy = "exhaustive") {
    kt::tune_request rq;
    rq.strategy = std::move(strategy);
    rq.budget = budget;
    rq.seed = 7;
    return rq;
}

/// Every config 1.5 ms but those given.
void times(fake_evaluator& ev, std::map<std::int64_t, double> m) {
    for (std::int64_t x = 1; x <= 8; ++x)
        ev.search_ms[cfg(x)] = m.count(x) ? m[x] : 1.5;
}

} // namespace

TEST_CASE("the tune loop measures the baseline, every candidate once, in one list") {
    fake_evaluator ev;
    times(ev, {{3, 1.0}});
    kt::tune_report rep;
    REQUIRE(kt::detail::run_search(request(8), eight(), config_of(8), ev, rep, {}));
    CHECK(rep.baseline.cfg == config_of(8));
    CHECK(rep.candidates.size() == 8);
    CHECK(rep.candidates[rep.winner_index].cfg == config_of(3));
    CHECK_FALSE(rep.default_joined); // searched already
    CHECK(ev.remeasured == 0);       // one leader on one GPU: nothing to confirm
    // The baseline first, then the candidates in the order they were measured.
    REQUIRE(ev.measured_order.size() == 9);
    CHECK(ev.measured_order.front() == cfg(8));
}

TEST_CASE("a learning strategy proposes at most 8 a GPU at a time, streams one a compile thread") {
    // docs/perf/search.md#live-batches: batches of 2 x the compile threads, seen a batch late,
    // cost a learning strategy evaluations.
    std::vector<std::int64_t> values(200);
    for (std::size_t i = 0; i < values.size(); ++i)
        values[i] = static_cast<std::int64_t>(i);
    const kt::space wide({kt::axis::list("x", values)});
    const auto largest = [&](const std::string& strategy, std::size_t gpus, bool stream) {
        fake_evaluator ev;
        ev.batch_n = 32;
        ev.gpus.clear();
        for (std::size_t g = 0; g < gpus; ++g)
            ev.gpus.push_back({static_cast<int>(g)});
        kt::tune_request rq = request(100, strategy);
        rq.stream = stream;
        for (std::size_t g = 0; g < gpus; ++g)
            rq.gpus.push_back(static_cast<int>(g));
        kt::tune_report rep;
        ktune::config dflt;
        dflt.set("x", 0);
        REQUIRE(kt::detail::run_search(rq, wide, dflt, ev, rep, {}));
        const auto most = *std::max_element(ev.started.begin(), ev.started.end());
        CHECK(rep.in_flight == most);
        const bool learns = strategy != "random" && strategy != "exhaustive";
        CHECK(rep.pipeline == (stream && learns ? "stream" : "ahead"));
        return most;
    };
    CHECK(largest("auto", 1, false) == 8);
    CHECK(largest("annealing", 1, false) == 8);
    CHECK(largest("auto", 2, false) == 16);
    CHECK(largest("random", 1, false) == 32);
    CHECK(largest("exhaustive", 1, false) == 32);
    // Streaming (docs/perf/search.md#streaming): one in flight a compile thread (16 here), at
    // most 16 a GPU; random and exhaustive stay in batches (two candidates a program).
    CHECK(largest("auto", 1, true) == 16);
    CHECK(largest("annealing", 1, true) == 16);
    CHECK(largest("auto", 2, true) == 16);
    CHECK(largest("random", 1, true) == 32);
}

TEST_CASE("the confirmation round re-times the leaders and can overturn the search") {
    fake_evaluator ev;
    times(ev, {{2, 1.00}, {5, 1.01}}); // both within 3 %: leaders
    ev.confirm_ms = {{cfg(2), 1.05}, {cfg(5), 1.00}};
    kt::tune_report rep;
    REQUIRE(kt::detail::run_search(request(8), eight(), config_of(8), ev, rep, {}));
    CHECK(ev.remeasured == 4); // two rounds x two leaders
    CHECK(rep.candidates[rep.winner_index].cfg == config_of(5));
    CHECK(rep.tied == 1);
    // The pooled samples hold the search's and both rounds'.
    CHECK(rep.candidates[rep.winner_index].run.samples_ms.size() == 12 + 2 * 24);
}

TEST_CASE("a leader outside the 3 % band is not re-timed") {
    fake_evaluator ev;
    times(ev, {{2, 1.00}, {5, 1.04}});
    kt::tune_report rep;
    REQUIRE(kt::detail::run_search(request(8), eight(), config_of(8), ev, rep, {}));
    CHECK(ev.remeasured == 0);
    CHECK(rep.candidates[rep.winner_index].cfg == config_of(2));
}

TEST_CASE("the default joins the finalists when the search missed it, and can win") {
    fake_evaluator ev;
    times(ev, {{1, 1.00}, {8, 0.99}}); // exhaustive with budget 4 measures 1..4, not 8
    kt::tune_report rep;
    REQUIRE(kt::detail::run_search(request(4), eight(), config_of(8), ev, rep, {}));
    CHECK(rep.candidates.size() == 5);
    CHECK(rep.default_joined);
    CHECK(rep.candidates.back().cfg == config_of(8));
    CHECK(rep.candidates[rep.winner_index].cfg == config_of(8));

    fake_evaluator slow;
    times(slow, {{1, 1.00}, {8, 1.20}}); // outside the band: stays out
    kt::tune_report r2;
    REQUIRE(kt::detail::run_search(request(4), eight(), config_of(8), slow, r2, {}));
    CHECK_FALSE(r2.default_joined);
    CHECK(r2.candidates[r2.winner_index].cfg == config_of(1));
}

TEST_CASE("ties are reported and broken the same way every time") {
    const auto run = [] {
        fake_evaluator ev;
        times(ev, {{6, 1.0}, {4, 1.0}});
        kt::tune_report rep;
        REQUIRE(kt::detail::run_search(request(8), eight(), config_of(8), ev, rep, {}));
        return rep;
    };
    const auto a = run(), b = run();
    CHECK(a.tied == 2);
    CHECK(a.candidates[a.winner_index].cfg == b.candidates[b.winner_index].cfg);
    // Equal medians and intervals: the canonical config string decides (selection.hpp).
    CHECK(a.candidates[a.winner_index].cfg == config_of(4));
}

TEST_CASE("a failing candidate never wins; nothing passing reports no winner") {
    fake_evaluator ev;
    times(ev, {{3, 0.5}, {6, 1.0}});
    ev.wrong = {cfg(3)};
    kt::tune_report rep;
    REQUIRE(kt::detail::run_search(request(8), eight(), config_of(8), ev, rep, {}));
    CHECK(rep.candidates[rep.winner_index].cfg == config_of(6));

    fake_evaluator none;
    times(none, {});
    for (std::int64_t x = 1; x <= 8; ++x)
        none.wrong.push_back(cfg(x));
    kt::tune_report r2;
    CHECK_FALSE(kt::detail::run_search(request(8), eight(), config_of(8), none, r2, {}));
}

TEST_CASE("the winner is filed in the cache in microseconds under the tune's key") {
    fake_evaluator ev;
    times(ev, {{3, 0.25}});
    kt::tune_report rep;
    auto rq = request(8);
    REQUIRE(kt::detail::run_search(rq, eight(), config_of(8), ev, rep, {}));
    const auto dir =
        std::filesystem::temp_directory_path() / ("ktune_tuner_loop_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    rq.cache_file = dir / "tuned.json";
    ktune::cache::cache_key key{"fake_op", "v1",  "fp32", {1024, 1024},
                                "sm_90",   13000, 580,    ktune::cache::current_protocol};
    ktune::device_info dev;
    dev.name = "NVIDIA H100 80GB HBM3";
    dev.cc_major = 9;
    kt::detail::file_winner(rep, rq, key, dev, rq.cache_file);
    const auto idx = ktune::cache::cache_index::load(rq.cache_file);
    const auto* e = idx.find(ktune::cache::prepared_key(key));
    REQUIRE(e != nullptr);
    CHECK(e->cfg == config_of(3));
    CHECK(e->time.median_us == Approx(250.0));
    CHECK(e->time.samples == 12);

    rq.write_cache = false; // the entry is built, the file untouched
    auto other = key;
    other.op = "other_op";
    kt::detail::file_winner(rep, rq, other, dev, rq.cache_file);
    CHECK(rep.winner.key == other);
    CHECK(ktune::cache::cache_index::load(rq.cache_file).find(ktune::cache::prepared_key(other)) ==
          nullptr);
    std::filesystem::remove_all(dir);
}

TEST_CASE("across GPUs: each GPU's factor is taken out before one tie-aware decision") {
    // GPU 1 runs 3 % slower. Config 2 is the fastest on both; the search timed it on GPU 1,
    // so its search median (1.03) is above config 5's (1.01, timed on GPU 0).
    fake_evaluator ev;
    ev.gpus = {{0, 1.0, -1, 0}, {1, 1.03, -1, 0}};
    times(ev, {{2, 1.00}, {5, 1.01}});
    kt::tune_report rep;
    rep.gpus = {0, 1};
    auto rq = request(8);
    REQUIRE(kt::detail::run_search(rq, eight(), config_of(8), ev, rep, {}));
    const auto& w = rep.candidates[rep.winner_index];
    CHECK(w.cfg == config_of(2));
    REQUIRE(w.per_gpu.size() == 2);
    CHECK(w.per_gpu[0].gpu == 0);
    CHECK(w.per_gpu[1].gpu == 1);
    CHECK(w.per_gpu[1].median_ms / w.per_gpu[0].median_ms == Approx(1.03).epsilon(0.002));
    // Pooled on GPU 0's scale.
    CHECK(w.run.median_ms == Approx(1.00).epsilon(0.002));
}

TEST_CASE("decide_across_gpus: equal after scaling is a tie, not a win for either GPU") {
    const kt::space sp = eight();
    std::vector<std::vector<std::pair<int, double>>> s(2);
    for (int i = 0; i < 12; ++i) {
        const double j = 1.0 + 0.0005 * (i % 3);
        s[0].emplace_back(0, 1.0 * j);
        s[0].emplace_back(1, 1.02 * j);
        s[1].emplace_back(0, 1.0 * j);
        s[1].emplace_back(1, 1.02 * j);
    }
    const auto c = kt::detail::decide_across_gpus(
        s, {sp.from_config(config_of(7)), sp.from_config(config_of(3))}, sp);
    CHECK(c.tied == 2);
    CHECK(c.best == 1); // x=3 before x=7 in canonical order
    REQUIRE(c.pooled[0].size() == 24);
    CHECK(c.pooled[0][1] == Approx(c.pooled[0][0]));
}
