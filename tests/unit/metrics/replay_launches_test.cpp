// --replay launches through the seam: pass i of a kernel on its i-th profiled natural launch,
// one kernel in flight, passes merged only across launches of one name and shape, flushes only
// before a counting pass, and kernels that never finish their passes reported incomplete.
#include "catch.hpp"

#include "ktune/core/error.hpp"
#include "ktune/metrics/range_session.hpp"

#include <string>
#include <vector>

using namespace ktune::metrics;

namespace {

// User replay as CUPTI does it: `passes` passes per range, the pass index chosen before each
// start, all passes submitted after the last one. Each decoded value is (kernels decoded) * 100
// + metric number, so the join is checkable.
struct fake_user_replay final : range_backend {
    std::size_t passes = 3;
    std::size_t pass = 0, decodes = 0, discarded = 0, starts = 0, metrics = 0;
    std::vector<std::size_t> begun; ///< pass index of every begin_pass
    bool running = false, submitted = false;
    std::string chip() override { return "GH100"; }
    void configure(std::span<const std::string> m, std::size_t max_ranges,
                   replay_mode replay) override {
        REQUIRE(replay == replay_mode::launches);
        REQUIRE(max_ranges == 1);
        metrics = m.size();
    }
    void begin_pass(std::size_t p) override {
        REQUIRE_FALSE(running);
        if (p == 0 && pass != 0) ++discarded; // a kernel given up on
        REQUIRE(p == (p == 0 ? 0 : pass));    // CUPTI's pass order is kept
        pass = p;
        begun.push_back(p);
    }
    void start() override {
        REQUIRE_FALSE(running);
        running = true;
        ++starts;
    }
    pass_state stop() override {
        REQUIRE(running);
        running = false;
        ++pass;
        submitted = pass == passes;
        return {pass, submitted};
    }
    decoded decode() override {
        REQUIRE(submitted);
        decoded d;
        d.range_names.push_back("0");
        std::vector<double> v;
        for (std::size_t m = 0; m < metrics; ++m)
            v.push_back(double(decodes) * 100 + double(m));
        d.values.push_back(std::move(v));
        ++decodes;
        pass = 0;
        submitted = false;
        return d;
    }
};

metric_set three_pass_set() {
    return {"roofline", "GH100", {"gpu__time_duration.sum", "dram__bytes.sum"}, {}, 3};
}

sampling_options every_kernel() {
    sampling_options o;
    o.max_kernels = 10;
    o.max_per_kernel = 1;
    return o;
}

} // namespace

TEST_CASE("replay modes parse") {
    CHECK(parse_replay_mode("kernel") == replay_mode::kernel);
    CHECK(parse_replay_mode("launches") == replay_mode::launches);
    CHECK(to_string(replay_mode::launches) == "launches");
    CHECK_THROWS_AS(parse_replay_mode("application"), ktune::error);
}

TEST_CASE("launches mode collects pass i on the i-th launch, one kernel at a time") {
    auto backend = std::make_unique<fake_user_replay>();
    auto* fake = backend.get();
    range_session s(three_pass_set(), every_kernel(), std::move(backend), 64,
                    replay_mode::launches);
    int flushes = 0;
    const auto flush = [&] { ++flushes; };
    // A loop of 4 iterations launching a, b, a, c (c with two shapes).
    std::vector<std::uint64_t> profiled;
    std::uint64_t i = 0;
    for (int it = 0; it < 4; ++it)
        for (const auto& [name, shape] :
             std::vector<std::pair<std::string, std::string>>{{"a", "1/1/0"},
                                                              {"b", "2/1/0"},
                                                              {"a", "1/1/0"},
                                                              {"c", it % 2 ? "8/1/0" : "4/1/0"}}) {
            if (s.launch_begin(name, i, 1000 + i, false, shape, flush)) {
                profiled.push_back(i);
                s.launch_end();
            }
            ++i;
        }
    // a: launches 0, 2, 4 (passes 0, 1, 2); then b at 5, 9, 13 while a and c wait; a has its
    // sample (max_per_kernel 1), so c starts at 15 (shape 8/1/0) and the run ends after its
    // first pass.
    CHECK(profiled == std::vector<std::uint64_t>{0, 2, 4, 5, 9, 13, 15});
    CHECK(flushes == int(profiled.size())); // one flush right before each counting pass
    CHECK(fake->starts == profiled.size());
    const auto doc = s.finish();
    CHECK(doc.replay == "launches");
    REQUIRE(doc.kernels.size() == 2);
    CHECK(doc.kernels[0].name == "a");
    CHECK(doc.kernels[0].launch_index == 0);
    CHECK(doc.kernels[0].correlation_id == 1000);
    CHECK(doc.kernels[0].pass_launches == 3);
    CHECK(doc.kernels[0].values.at("dram__bytes.sum") == 1);
    CHECK(doc.kernels[1].name == "b");
    CHECK(doc.kernels[1].launch_index == 5);
    CHECK(doc.kernels[1].values.at("gpu__time_duration.sum") == 100);
    CHECK(doc.incomplete_kernels == 1); // c
    CHECK(fake->decodes == 2);
}

TEST_CASE("a kernel launched fewer times than the set has passes is incomplete, not replayed") {
    auto backend = std::make_unique<fake_user_replay>();
    auto* fake = backend.get();
    range_session s(three_pass_set(), every_kernel(), std::move(backend), 64,
                    replay_mode::launches);
    s.set_patience(2);
    std::uint64_t i = 0;
    const auto launch = [&](const std::string& name) {
        const bool p = s.launch_begin(name, i, i, false, "1/1/0");
        if (p) s.launch_end();
        ++i;
        return p;
    };
    CHECK(launch("once"));        // pass 0 of "once"
    CHECK(launch("once"));        // pass 1
    CHECK_FALSE(launch("other")); // waits (1)
    CHECK_FALSE(launch("other")); // waits (2)
    CHECK(launch("other"));       // patience exhausted: "once" is given up, "other" starts
    CHECK(fake->discarded == 1);
    CHECK(launch("other"));
    CHECK(launch("other")); // its third pass: complete
    CHECK(launch("last"));  // one pass, then the run ends
    const auto doc = s.finish();
    REQUIRE(doc.kernels.size() == 1);
    CHECK(doc.kernels[0].name == "other");
    CHECK(doc.kernels[0].pass_launches == 3);
    CHECK(doc.incomplete_kernels == 2); // "once" (given up) and "last" (run ended)
    CHECK(doc.incomplete == std::vector<std::string>{"once", "last"});
    CHECK(doc.dropped_ranges == 0);
}

TEST_CASE("a one-pass set completes on every profiled launch") {
    auto backend = std::make_unique<fake_user_replay>();
    backend->passes = 1;
    metric_set one{"dram", "GH100", {"dram__bytes.sum"}, {}, 1};
    sampling_options o = every_kernel();
    o.max_per_kernel = 2;
    range_session s(one, o, std::move(backend), 64, replay_mode::launches);
    int n = 0;
    for (std::uint64_t i = 0; i < 4; ++i)
        if (s.launch_begin("k", i, i, false, "1/1/0")) {
            ++n;
            s.launch_end();
        }
    CHECK(n == 2); // max_per_kernel counts kernels' samples, each one launch here
    const auto doc = s.finish();
    REQUIRE(doc.kernels.size() == 2);
    CHECK(doc.kernels[1].launch_index == 1);
    CHECK(doc.kernels[1].pass_launches == 1);
    CHECK(doc.incomplete_kernels == 0);
}

TEST_CASE("a kernel that stops recurring is given up once another kernel repeats") {
    // PyTorch-like: an initialisation kernel launched twice before the loop, then x, y, x, y…
    auto backend = std::make_unique<fake_user_replay>();
    range_session s(three_pass_set(), every_kernel(), std::move(backend), 64,
                    replay_mode::launches);
    std::vector<std::string> profiled;
    std::uint64_t i = 0;
    const auto launch = [&](const std::string& name) {
        if (s.launch_begin(name, i, i, false, "1/1/0")) {
            profiled.push_back(name + "@" + std::to_string(i));
            s.launch_end();
        }
        ++i;
    };
    launch("init");
    launch("init");
    for (int it = 0; it < 8; ++it) {
        launch("x");
        launch("y");
    }
    // init in flight after 2 passes; x's 4th launch (i = 8) gives it up and starts x; x then
    // runs its passes at 10 and 12, and y starts at its next launch (13) and ends at 17.
    CHECK(profiled == std::vector<std::string>{"init@0", "init@1", "x@8", "x@10", "x@12", "y@13",
                                               "y@15", "y@17"});
    const auto doc = s.finish();
    CHECK(doc.incomplete_kernels == 1);
    REQUIRE(doc.kernels.size() == 2);
    CHECK(doc.kernels[0].name == "x");
    CHECK(doc.kernels[1].name == "y");
}
