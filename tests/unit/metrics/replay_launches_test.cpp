// --replay launches through the seam: one pass covers many kernels (one user range each, named
// by its position in pass 0), later passes push pass 0's ranges in the same order on later
// launches, kernels that do not come back keep their place with an empty range and are reported
// incomplete, and one decode per sequence.
#include "catch.hpp"

#include "ktune/core/error.hpp"
#include "ktune/metrics/range_session.hpp"

#include <string>
#include <vector>

using namespace ktune::metrics;

namespace {

// CUPTI's user replay with user ranges as ktune drives it: `passes` passes; every pass after the
// first must push pass 0's ranges in the same order under the same names (CUPTI matches them);
// decode gives one row per range of pass 0, each value decodes * 1000 + range * 10 + metric, so
// the join is checkable. kernel_ran() marks the open range as holding a launch.
struct fake_user_ranges final : range_backend {
    std::size_t passes = 3;
    std::size_t pass = 0, decodes = 0, starts = 0, metrics = 0, max_ranges = 0, empty = 0;
    std::size_t discarded = 0, waits = 0;
    std::vector<std::string> pass0, current;
    bool running = false, open = false, worked = false, submitted = false;
    std::string chip() override { return "GH100"; }
    void configure(std::span<const std::string> m, std::size_t ranges,
                   replay_mode replay) override {
        REQUIRE(replay == replay_mode::launches);
        max_ranges = ranges;
        metrics = m.size();
    }
    void begin_pass(std::size_t p) override {
        REQUIRE_FALSE(running);
        if (p == 0 && pass != 0) ++discarded; // a sequence given up on
        if (p == 0) pass = 0;
        REQUIRE(p == pass); // CUPTI's pass order is kept
    }
    void start() override {
        REQUIRE_FALSE(running);
        running = true;
        ++starts;
        current.clear();
    }
    void push_range(std::string_view name) override {
        REQUIRE(running);
        REQUIRE_FALSE(open);
        open = true;
        worked = false;
        current.emplace_back(name);
        REQUIRE(current.size() <= max_ranges);
    }
    void kernel_ran() {
        REQUIRE(open);
        worked = true;
    }
    void pop_range(bool wait) override {
        REQUIRE(open);
        open = false;
        waits += wait ? 1 : 0;
        if (!worked) ++empty;
    }
    pass_state stop() override {
        REQUIRE(running);
        REQUIRE_FALSE(open);
        running = false;
        if (pass == 0)
            pass0 = current;
        else
            CHECK(current == pass0); // same ranges, same order, same names
        ++pass;
        submitted = pass == passes;
        return {pass, submitted};
    }
    decoded decode() override {
        REQUIRE(submitted);
        decoded d;
        for (std::size_t r = 0; r < pass0.size(); ++r) {
            d.range_names.push_back(pass0[r]);
            std::vector<double> v;
            for (std::size_t m = 0; m < metrics; ++m)
                v.push_back(double(decodes) * 1000 + double(r) * 10 + double(m));
            d.values.push_back(std::move(v));
        }
        ++decodes;
        pass = 0;
        submitted = false;
        return d;
    }
};

metric_set three_pass_set() {
    return {"roofline", "GH100", {"gpu__time_duration.sum", "dram__bytes.sum"}, {}, 3};
}

sampling_options every_kernel(std::uint64_t per_kernel = 1) {
    sampling_options o;
    o.max_kernels = 10;
    o.max_per_kernel = per_kernel;
    return o;
}

// Runs launches through a session, as the injection does, recording "name@index" of profiled
// ones; the flush counts calls of before_start.
struct driver {
    fake_user_ranges* fake;
    range_session s;
    std::uint64_t i = 0;
    int flushes = 0;
    std::vector<std::string> profiled;
    driver(std::unique_ptr<fake_user_ranges> b, metric_set set, sampling_options o)
        : fake(b.get()), s(std::move(set), std::move(o), std::move(b), 64, replay_mode::launches) {}
    void launch(const std::string& name, const std::string& shape = "1/1/0", bool wait = false) {
        if (s.launch_begin(name, i, 1000 + i, false, shape, [this] { ++flushes; })) {
            fake->kernel_ran();
            profiled.push_back(name + "@" + std::to_string(i));
            s.launch_end(wait);
        }
        ++i;
    }
};

} // namespace

TEST_CASE("replay modes parse") {
    CHECK(parse_replay_mode("kernel") == replay_mode::kernel);
    CHECK(parse_replay_mode("launches") == replay_mode::launches);
    CHECK(to_string(replay_mode::launches) == "launches");
    CHECK_THROWS_AS(parse_replay_mode("application"), ktune::error);
}

TEST_CASE("launches mode collects a loop's kernels together, one pass per iteration") {
    driver d(std::make_unique<fake_user_ranges>(), three_pass_set(), every_kernel());
    // A loop launching a, b, a, c: pass 0 takes a, b, c in the first iteration and closes when a
    // has come back more than 3 times since c joined (i = 10), which opens pass 1 there; passes
    // 1 and 2 follow a, b, c, skipping launches that are not the next expected one (c at 11, a
    // at 12).
    for (int it = 0; it < 6; ++it)
        for (const char* k : {"a", "b", "a", "c"})
            d.launch(k, "1/1/0", it == 3);
    CHECK(d.profiled == std::vector<std::string>{"a@0", "b@1", "c@3", "a@10", "b@13", "c@15",
                                                 "a@16", "b@17", "c@19"});
    CHECK(d.fake->starts == 3); // one start/stop per pass, not per kernel
    CHECK(d.fake->max_ranges == launches_ranges_per_pass);
    CHECK(d.flushes == 9);     // right before each range
    CHECK(d.fake->waits == 2); // b@13, c@15 (iteration 3: off the legacy stream) wait to pop
    CHECK(d.fake->empty == 0);
    CHECK(d.fake->pass0 == std::vector<std::string>{"0", "1", "2"});
    const auto doc = d.s.finish();
    CHECK(doc.replay == "launches");
    CHECK(doc.range == "user");
    CHECK(d.fake->decodes == 1);
    REQUIRE(doc.kernels.size() == 3);
    CHECK(doc.kernels[0].name == "a");
    CHECK(doc.kernels[0].launch_index == 0);
    CHECK(doc.kernels[0].correlation_id == 1000);
    CHECK(doc.kernels[1].name == "b");
    CHECK(doc.kernels[1].values.at("dram__bytes.sum") == 11); // range 1, metric 1
    CHECK(doc.kernels[2].name == "c");
    CHECK(doc.kernels[2].launch_index == 3);
    CHECK(doc.kernels[2].values.at("gpu__time_duration.sum") == 20);
    CHECK(doc.kernels[2].pass_launches == 3);
    CHECK(doc.incomplete_kernels == 0);
}

TEST_CASE("a kernel launched with another shape is another kernel") {
    driver d(std::make_unique<fake_user_ranges>(), three_pass_set(), every_kernel());
    // c alternates between two grids; its first shape joins pass 0, the other one is never
    // profiled (max one sample per kernel name), and each later pass waits for the first shape.
    for (int it = 0; it < 8; ++it)
        for (const char* k : {"a", "b", "a", "c"})
            d.launch(k, k == std::string("c") && it % 2 ? "8/1/0" : "4/1/0");
    for (const auto& p : d.profiled)
        if (p.starts_with("c@")) CHECK((std::stoi(p.substr(2)) / 4) % 2 == 0); // even iterations
    const auto doc = d.s.finish();
    REQUIRE(doc.kernels.size() == 3);
    CHECK(doc.kernels[2].name == "c");
    CHECK(doc.kernels[2].launch_index == 3);
    CHECK(d.fake->starts == 3);
    CHECK(doc.incomplete_kernels == 0);
}

TEST_CASE("a kernel that does not come back keeps its place with an empty range") {
    // PyTorch-like: an initialisation kernel launched twice before the loop, then x, y, x, y…
    driver d(std::make_unique<fake_user_ranges>(), three_pass_set(), every_kernel());
    d.launch("init");
    d.launch("init");
    for (int it = 0; it < 12; ++it) {
        d.launch("x");
        d.launch("y");
    }
    // Pass 0: init, x, y, closed at x's 4th return (i = 10). Pass 1 waits for init until x has
    // come back 4 times more (i = 16), then gives init an empty range; pass 2 pushes init's
    // empty range before x at once.
    CHECK(d.profiled ==
          std::vector<std::string>{"init@0", "x@2", "y@3", "x@16", "y@17", "x@18", "y@19"});
    CHECK(d.fake->empty == 2);
    const auto doc = d.s.finish();
    REQUIRE(doc.kernels.size() == 2);
    CHECK(doc.kernels[0].name == "x");
    CHECK(doc.kernels[0].values.at("gpu__time_duration.sum") == 10); // range 1: init's kept 0
    CHECK(doc.kernels[1].name == "y");
    CHECK(doc.kernels[1].values.at("dram__bytes.sum") == 21);
    CHECK(doc.incomplete == std::vector<std::string>{"init"});
    CHECK(doc.incomplete_kernels == 1);
    CHECK(doc.dropped_ranges == 0);
}

TEST_CASE("kernels of a sequence still open at exit are incomplete, not lost") {
    driver d(std::make_unique<fake_user_ranges>(), three_pass_set(), every_kernel());
    for (int it = 0; it < 2; ++it) {
        d.launch("a");
        d.launch("b");
    }
    const auto doc = d.s.finish();
    CHECK(doc.kernels.empty());
    CHECK(doc.incomplete == std::vector<std::string>{"a", "b"});
    CHECK_FALSE(d.fake->running); // the open pass was stopped
}

TEST_CASE("sampling limits bound a sequence, and a later sequence samples again") {
    sampling_options o = every_kernel(2);
    o.max_kernels = 2;
    driver d(std::make_unique<fake_user_ranges>(), three_pass_set(), o);
    for (int it = 0; it < 14; ++it)
        for (const char* k : {"a", "b", "c"})
            d.launch(k);
    for (const auto& p : d.profiled)
        CHECK_FALSE(p.starts_with("c@")); // max 2 kernels: c never joins
    const auto doc = d.s.finish();
    REQUIRE(doc.kernels.size() == 4); // a, b twice each (max 2 samples per kernel)
    CHECK(doc.kernels[0].name == "a");
    CHECK(doc.kernels[1].name == "b");
    CHECK(doc.kernels[2].name == "a");
    CHECK(doc.kernels[2].launch_index > doc.kernels[1].launch_index);
    CHECK(doc.kernels[3].values.at("gpu__time_duration.sum") == 1010); // second decode
    CHECK(d.fake->decodes == 2);
    CHECK(d.fake->starts == 6);
}

TEST_CASE("a pass holds at most launches_ranges_per_pass kernels") {
    sampling_options o = every_kernel();
    o.max_kernels = 100;
    driver d(std::make_unique<fake_user_ranges>(), three_pass_set(), o);
    for (int it = 0; it < 12; ++it)
        for (int k = 0; k < 70; ++k)
            d.launch("k" + std::to_string(k));
    const auto doc = d.s.finish();
    REQUIRE(doc.kernels.size() == 70); // 64 in the first sequence, 6 in the next one
    CHECK(doc.kernels[63].name == "k63");
    CHECK(doc.kernels[64].name == "k64");
    CHECK(d.fake->decodes == 2);
}

TEST_CASE("a one-pass set completes when pass 0 closes") {
    auto backend = std::make_unique<fake_user_ranges>();
    backend->passes = 1;
    metric_set one{"dram", "GH100", {"dram__bytes.sum"}, {}, 1};
    driver d(std::move(backend), one, every_kernel(2));
    for (int it = 0; it < 12; ++it) {
        d.launch("a");
        d.launch("b");
    }
    const auto doc = d.s.finish();
    REQUIRE(doc.kernels.size() == 4);
    CHECK(doc.kernels[1].pass_launches == 1);
    CHECK(doc.incomplete_kernels == 0);
}
