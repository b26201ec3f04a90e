#include "catch.hpp"

#include "ktune/core/error.hpp"
#include "ktune/tune/replay.hpp"

#include <string>

using namespace ktune::tune;

namespace {
std::string data(const char* f) {
    return std::string(KTUNE_TEST_DATA_DIR) + "/tune/" + f;
}

std::string load_error(const char* f) {
    try {
        (void)load_recorded_space(data(f));
    } catch (const ktune::error& e) {
        CHECK(e.kind() == ktune::error_kind::input);
        return e.what();
    }
    FAIL("no error for " << f);
    return {};
}
} // namespace

TEST_CASE("Kernel Tuner cache: plain and gzip read the same, failures kept") {
    const auto a = load_recorded_space(data("kt_small.json"));
    const auto b = load_recorded_space(data("kt_small.json.gz"));
    CHECK(a.format == "kernel_tuner");
    CHECK(a.device == "Test GPU");
    CHECK(a.configs == b.configs);
    CHECK(a.space.axes().size() == 3);
    CHECK(a.space.cartesian_size() == 18);
    CHECK(a.configs.size() == 16); // two configs broke the recording's restriction
    CHECK(a.space.valid_count() == 16);
    CHECK(a.ok_count() == 13);
    const auto c = [&](std::int64_t bl, std::int64_t t, std::int64_t s) {
        return a.space.from_config(ktune::config{{"block", bl}, {"tile", t}, {"shmem", s}});
    };
    CHECK(a.evaluate(c(128, 2, 1)).status == eval_status::compile_error);
    CHECK(a.evaluate(c(32, 4, 0)).status == eval_status::launch_error);
    CHECK(a.evaluate(c(64, 1, 0)).status == eval_status::launch_error); // time 1e20
    CHECK(a.evaluate(c(128, 4, 0)).status == eval_status::invalid);     // not recorded
    CHECK_FALSE(a.space.is_valid(c(128, 4, 0)));
    const auto ok = a.evaluate(c(64, 4, 1));
    CHECK(ok.ok());
    CHECK(ok.samples.size() == 7);
    CHECK(ok.cost_s == Approx(1.1)); // compile 1 s + benchmark 0.1 s
    CHECK(a.evaluate(c(64, 4, 1), false).cost_s == Approx(0.1));
}

TEST_CASE("T4 reads the same configs and outcomes") {
    const auto kt = load_recorded_space(data("kt_small.json"));
    const auto t4 = load_recorded_space(data("t4_small.json"));
    CHECK(t4.format == "t4");
    CHECK(t4.configs.size() == kt.configs.size());
    CHECK(t4.optimum() == kt.optimum());
    CHECK(t4.ok_count() == kt.ok_count());
    CHECK(t4.count_within(1.05) == kt.count_within(1.05));
}

TEST_CASE("malformed recordings are rejected naming the file and what is wrong") {
    const auto t = load_error("bad_truncated.json");
    CHECK(t.find("bad_truncated.json: not JSON") != std::string::npos);
    CHECK(t.find("line 1") != std::string::npos); // the parser's line and column
    CHECK(load_error("bad_truncated.json.gz").find("bad_truncated.json.gz: not a readable gzip") !=
          std::string::npos);
    const auto v = load_error("bad_value.json");
    CHECK(v.find("/cache/32,1,0/tile") != std::string::npos);
    CHECK(v.find("not in the parameter's list") != std::string::npos);
    CHECK(load_error("bad_no_time.json").find("no \"time\"") != std::string::npos);
    CHECK(load_error("bad_unknown_format.json").find("neither a Kernel Tuner cache") !=
          std::string::npos);
    CHECK(load_error("bad_t4_version.json").find("2.0.0") != std::string::npos);
    try {
        (void)load_recorded_space(data("does_not_exist.json"));
        FAIL("no throw");
    } catch (const ktune::error& e) {
        CHECK(e.kind() == ktune::error_kind::io);
    }
}

TEST_CASE("replay: seeded runs are reproducible and summarised") {
    const auto rec = load_recorded_space(data("kt_small.json"));
    replay_options o;
    o.strategy = "random";
    o.budget = 16;
    o.seed = 3;
    const auto r1 = replay_repeat(rec, o, 6, 1);
    const auto r2 = replay_repeat(rec, o, 6, 3); // thread count does not change results
    CHECK(r1 == r2);
    for (const auto& r : r1) {
        CHECK(r.evaluations == 16); // the whole recording
        REQUIRE(r.evals_to_target);
        CHECK(r.failures == 3);
        CHECK(r.best_time == Approx(rec.optimum()));
    }
    const auto s = summarize(rec, o, r1);
    CHECK(s.valid == 13);
    CHECK(s.random_expectation == Approx(14.0 / double(s.within + 1)));
    CHECK(s.reached == 6);
    CHECK(quartiles_of({1, 2, 3, 4, 5}) == quartiles{2, 3, 4});
}

TEST_CASE("a real recording (pnpoly on an RTX 3090) replays") {
    const auto rec = load_recorded_space(std::string(KTUNE_EXAMPLES_DATA_DIR) +
                                         "/spaces/pnpoly_RTX_3090.json.gz");
    CHECK(rec.configs.size() == 4092);
    CHECK(rec.ok_count() == 3774);
    CHECK(rec.count_within(1.05) == 33);
    replay_options o;
    o.strategy = "genetic";
    o.budget = 100;
    const auto run = replay_search(rec, o);
    CHECK(run.evaluations == 100);
    CHECK(run.best_time >= rec.optimum());
}
