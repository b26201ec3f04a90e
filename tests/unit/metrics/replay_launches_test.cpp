// --replay launches through the seam: one pass covers many kernels (one user range each, named
// by its place in the sequence), later passes take each kernel's next launch in any order,
// kernels that do not come back keep their name with an empty range and are reported
// incomplete, and one decode per sequence.
#include "catch.hpp"

#include "ktune/analysis/aggregate.hpp"
#include "ktune/core/error.hpp"
#include "ktune/metrics/range_session.hpp"
#include "ktune/trace/trace_file.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "fake_user_ranges.hpp"

TEST_CASE("replay modes parse") {
    CHECK(parse_replay_mode("kernel") == replay_mode::kernel);
    CHECK(parse_replay_mode("launches") == replay_mode::launches);
    CHECK(to_string(replay_mode::launches) == "launches");
    CHECK_THROWS_AS(parse_replay_mode("application"), ktune::error);
}

TEST_CASE("launches mode collects a loop's kernels together, one pass per iteration") {
    driver d(std::make_unique<fake_user_ranges>(), three_pass_set(), every_kernel());
    // A loop launching a, b, c: pass 0 takes all three in the first iteration and closes once
    // each came back (c@5), which opens pass 1 there; pass 2 follows right after.
    for (int it = 0; it < 5; ++it)
        for (const char* k : {"a", "b", "c"})
            d.launch(k, "1/1/0", it == 1);
    CHECK(d.profiled ==
          std::vector<std::string>{"a@0", "b@1", "c@2", "c@5", "a@6", "b@7", "c@8", "a@9", "b@10"});
    CHECK(d.fake->starts == 3); // one start/stop per pass, not per kernel
    CHECK(d.fake->max_ranges == launches_ranges_per_pass);
    CHECK(d.flushes == 9);     // right before each range
    CHECK(d.fake->waits == 1); // iteration 1 (off the legacy stream, waits to pop): c@5 only
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
    CHECK(doc.kernels[2].launch_index == 2);
    CHECK(doc.kernels[2].values.at("gpu__time_duration.sum") == 20);
    CHECK(doc.kernels[2].pass_launches == 3);
    CHECK(doc.incomplete_kernels == 0);
}

TEST_CASE("a kernel repeated in the loop body does not split the sequence") {
    driver d(std::make_unique<fake_user_ranges>(), three_pass_set(), every_kernel());
    // a, b, a, c: a's return does not close pass 0 (b has not come back), so c joins; pass 0
    // closes when c comes back (c@7), and later passes take each kernel's next launch, a's
    // second launch of the body included.
    for (int it = 0; it < 6; ++it)
        for (const char* k : {"a", "b", "a", "c"})
            d.launch(k);
    CHECK(d.profiled == std::vector<std::string>{"a@0", "b@1", "c@3", "c@7", "a@8", "b@9", "a@10",
                                                 "c@11", "b@13"});
    const auto doc = d.s.finish();
    REQUIRE(doc.kernels.size() == 3);
    CHECK(doc.kernels[2].name == "c");
    CHECK(doc.kernels[2].values.at("gpu__time_duration.sum") == 20); // one decode, range 2
    CHECK(d.fake->starts == 3);
    CHECK(doc.incomplete_kernels == 0);
}

TEST_CASE("a kernel's first launch is a warm-up, never profiled") {
    driver d(std::make_unique<fake_user_ranges>(), three_pass_set(), every_kernel(), 1);
    for (int it = 0; it < 5; ++it) {
        d.launch("a");
        d.launch("b");
    }
    CHECK(d.profiled == std::vector<std::string>{"a@2", "b@3", "b@5", "a@6", "b@7", "a@8"});
    CHECK(d.s.finish().kernels.size() == 2);
}

TEST_CASE("a kernel repeated back to back takes one launch per pass") {
    // bench_roofline_vs_ncu --repeat 3: each workload three times in a row, never again.
    driver d(std::make_unique<fake_user_ranges>(), three_pass_set(), every_kernel());
    for (const char* k : {"x", "y"})
        for (int r = 0; r < 3; ++r)
            d.launch(k);
    CHECK(d.profiled == std::vector<std::string>{"x@0", "x@1", "x@2", "y@3", "y@4", "y@5"});
    const auto doc = d.s.finish();
    REQUIRE(doc.kernels.size() == 2);
    CHECK(doc.kernels[1].launch_index == 3);
    CHECK(doc.incomplete_kernels == 0);
}

TEST_CASE("a kernel launched with another shape is another kernel") {
    driver d(std::make_unique<fake_user_ranges>(), three_pass_set(), every_kernel());
    // c alternates between two grids: its first shape joins pass 0, the other is never profiled
    // (max one sample per kernel name) and each pass takes the first shape's next launch.
    for (int it = 0; it < 6; ++it) {
        d.launch("a");
        d.launch("c", it % 2 ? "8/1/0" : "4/1/0");
    }
    CHECK(d.profiled == std::vector<std::string>{"a@0", "c@1", "c@5", "a@6", "a@8", "c@9"});
    const auto doc = d.s.finish();
    REQUIRE(doc.kernels.size() == 2);
    CHECK(doc.kernels[1].name == "c");
    CHECK(doc.kernels[1].launch_index == 1);
    CHECK(d.fake->starts == 3);
    CHECK(doc.incomplete_kernels == 0);
}

TEST_CASE("a kernel that does not come back keeps its place with an empty range") {
    driver d(std::make_unique<fake_user_ranges>(), three_pass_set(), every_kernel());
    // x, y, z in a loop where z skips the second iteration.
    for (int it = 0; it < 6; ++it) {
        d.launch("x");
        d.launch("y");
        if (it != 1) d.launch("z");
    }
    // Pass 0: x, y, z (0-2), open until z comes back (z@7, which opens pass 1); pass 1: x@8,
    // y@9; pass 2: z@10, x@11, y@12.
    CHECK(d.profiled == std::vector<std::string>{"x@0", "y@1", "z@2", "z@7", "x@8", "y@9", "z@10",
                                                 "x@11", "y@12"});
    CHECK(d.fake->empty == 0);
    const auto doc = d.s.finish();
    REQUIRE(doc.kernels.size() == 3);
    CHECK(doc.incomplete_kernels == 0);

    // Now z stops for good after the first iteration: it gets an empty range in passes 1 and 2.
    driver e(std::make_unique<fake_user_ranges>(), three_pass_set(), every_kernel());
    for (int it = 0; it < 12; ++it) {
        e.launch("x");
        e.launch("y");
        if (it == 0) e.launch("z");
    }
    CHECK(e.fake->empty == 2);
    const auto doc2 = e.s.finish();
    REQUIRE(doc2.kernels.size() == 2);
    CHECK(doc2.kernels[0].name == "x");
    CHECK(doc2.kernels[1].name == "y");
    CHECK(doc2.kernels[1].values.at("dram__bytes.sum") == 11); // range 1: z's range 2 is empty
    CHECK(doc2.incomplete == std::vector<std::string>{"z"});
    CHECK(doc2.dropped_ranges == 0);
}

TEST_CASE("a sequence whose only kernel never comes back is given up for the loop's kernels") {
    // PyTorch-like: an initialisation kernel launched twice before the loop, then x, y, x, y…
    driver d(std::make_unique<fake_user_ranges>(), three_pass_set(), every_kernel());
    d.launch("init");
    d.launch("init");
    for (int it = 0; it < 50; ++it) {
        d.launch("x");
        d.launch("y");
    }
    // init takes passes 0 and 1; 64 candidate launches without it give it up (x@66); the next
    // candidate launch (y) opens a sequence of y and x.
    CHECK(d.profiled == std::vector<std::string>{"init@0", "init@1", "y@67", "x@68", "x@70", "y@71",
                                                 "x@72", "y@73"});
    const auto doc = d.s.finish();
    REQUIRE(doc.kernels.size() == 2);
    CHECK(doc.kernels[0].name == "y");
    CHECK(doc.incomplete == std::vector<std::string>{"init"});
    CHECK(d.fake->discarded == 0); // init's third pass was submitted empty, its image decoded
    CHECK(d.fake->decodes == 2);
}

TEST_CASE("a sequence given up on submits its passes, so the next one's are whole") {
    // The same loop on a backend that, like CUPTI, counts passes on across a pass 0: had init's
    // third pass not been submitted, the next sequence's first stop would call all passes in.
    auto fake = std::make_unique<fake_user_ranges>();
    fake->counts_on = true;
    driver d(std::move(fake), three_pass_set(), every_kernel());
    d.launch("init");
    d.launch("init");
    for (int it = 0; it < 50; ++it) {
        d.launch("x");
        d.launch("y");
    }
    const auto doc = d.s.finish();
    REQUIRE(doc.kernels.size() == 2);
    CHECK(doc.kernels[0].name == "y");
    CHECK(doc.kernels[0].pass_launches == 3);
    CHECK(doc.kernels[1].pass_launches == 3);
    CHECK(doc.incomplete == std::vector<std::string>{"init"});
}

TEST_CASE("passes called all in after fewer than the set holds yield no partial sample") {
    // A backend two passes into a cycle the session never saw: its first stop calls every pass
    // submitted, and the image holds one pass of three.
    auto fake = std::make_unique<fake_user_ranges>();
    fake->counts_on = true;
    fake->pass = 2;
    driver d(std::move(fake), three_pass_set(), every_kernel());
    for (int it = 0; it < 4; ++it) {
        d.launch("a");
        d.launch("b");
    }
    const auto doc = d.s.finish();
    CHECK(doc.kernels.empty());
    CHECK(doc.incomplete == std::vector<std::string>{"a", "b"});
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
    CHECK(doc.kernels[2].name == "b"); // the second sequence opens on the next candidate
    CHECK(doc.kernels[3].name == "a");
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

namespace {

struct launch_order final : ktune::trace::trace_visitor {
    std::vector<ktune::trace::kernel_record> records;
    void on_kernels(std::span<const ktune::trace::kernel_record> ks) override {
        records.insert(records.end(), ks.begin(), ks.end());
    }
};

} // namespace

namespace {

// The unprofiled trace of a PyTorch script on an H200 (docs/perf/metrics.md#pass-cost), its
// launches in launch order (correlation id), each launch of the 10 hottest kernels (as
// step_metrics_replay_wall selects them) handed to a session as the injection does, with the
// warm-up launch.
struct recorded_run {
    std::unique_ptr<driver> d;
    ktune::metrics::kernel_metrics_doc doc;
    std::map<std::string, int> launches; ///< per kernel name
};

recorded_run replay_hottest(const std::string& path) {
    const auto top = ktune::analysis::aggregate({path}, ktune::analysis::group_by::kernel);
    REQUIRE(top.rows.size() >= 10);
    std::set<std::string> hottest;
    for (std::size_t i = 0; i < 10; ++i)
        hottest.insert(top.rows[i].mangled);
    ktune::trace::trace_reader reader(path);
    launch_order v;
    REQUIRE(reader.read(v).complete);
    std::sort(v.records.begin(), v.records.end(),
              [](const auto& a, const auto& b) { return a.correlation < b.correlation; });
    recorded_run run;
    run.d = std::make_unique<driver>(std::make_unique<fake_user_ranges>(), three_pass_set(),
                                     every_kernel(), 1);
    for (const auto& r : v.records) {
        const auto& name = reader.string(r.name_id).mangled;
        if (!hottest.contains(name)) {
            ++run.d->i;
            continue;
        }
        const std::string shape = std::to_string(r.grid.x) + "," + std::to_string(r.grid.y) + "," +
                                  std::to_string(r.grid.z) + "/" + std::to_string(r.block.x) + "," +
                                  std::to_string(r.block.y) + "," + std::to_string(r.block.z) +
                                  "/" + std::to_string(r.dynamic_smem);
        ++run.launches[name];
        run.d->launch(name, shape);
    }
    run.doc = run.d->s.finish();
    return run;
}

} // namespace

TEST_CASE("a recorded PyTorch loop: launches mode gets every kernel launched often enough") {
    // bench/profile/transformer_layer.py 40: 40 forwards of an inference layer (fused fast path).
    const auto run = replay_hottest(KTUNE_TEST_DATA_DIR "/metrics/h200_transformer_loop.ktrace");
    // The loop's 5 kernels (launched 40-120 times) get metrics, each on a warm launch (after the
    // first forward); the 5 others (initialisation kernels, and a tail launched once) are listed
    // incomplete: only --replay kernel can profile a kernel launched once.
    REQUIRE(run.doc.kernels.size() == 5);
    for (const auto& k : run.doc.kernels) {
        CHECK(run.launches.at(k.name) >= 40);
        CHECK(k.launch_index > 20);
    }
    CHECK(run.doc.incomplete_kernels == 5);
    CHECK(run.doc.kernels.size() + run.doc.incomplete.size() == 10);
    // 3 passes for the loop's kernels, 2 for an init kernel given up on and its third, empty.
    CHECK(run.d->fake->starts == 6);
}

TEST_CASE("a recorded PyTorch training loop: all 10 hottest kernels in one sequence") {
    // bench/metrics/train_loop.py, 32 steps of two encoder layers + AdamW: the GEMM kernels run
    // with several shapes (one is sampled), the loop body launches some kernels many times.
    const auto run = replay_hottest(KTUNE_TEST_DATA_DIR "/metrics/h200_train_loop.ktrace");
    INFO("incomplete: " << run.doc.incomplete.size());
    CHECK(run.doc.kernels.size() == 10);
    CHECK(run.doc.incomplete_kernels == 0);
    CHECK(run.d->fake->starts == 3);
    CHECK(run.d->fake->empty == 0);
}

TEST_CASE("a recorded suite of back-to-back repeats: each kernel takes one launch per pass") {
    // bench_roofline_vs_ncu --mode plain --repeat 3 under ktune profile on an H200
    // (docs/perf/metrics.md#pass-cost): 13 workloads, each launched 3 times in a row and never
    // again. ktune_l2_sweep and WaitNs ran inside the profiler's own calls, which the injection
    // does not hand to the session.
    const std::string path = KTUNE_TEST_DATA_DIR "/metrics/h200_suite_repeat3.ktrace";
    ktune::trace::trace_reader reader(path);
    launch_order v;
    REQUIRE(reader.read(v).complete);
    std::sort(v.records.begin(), v.records.end(),
              [](const auto& a, const auto& b) { return a.correlation < b.correlation; });
    sampling_options o = every_kernel(10);
    o.max_kernels = 100;
    driver d(std::make_unique<fake_user_ranges>(), three_pass_set(), o); // no warm-up here
    std::size_t candidates = 0;
    for (const auto& r : v.records) {
        const auto& name = reader.string(r.name_id).mangled;
        if (name == "ktune_l2_sweep" || name == "WaitNs") continue;
        ++candidates;
        d.launch(name, std::to_string(r.grid.x) + "," + std::to_string(r.grid.y) + "/" +
                           std::to_string(r.block.x) + "/" + std::to_string(r.dynamic_smem));
    }
    const auto doc = d.s.finish();
    CHECK(candidates == 51);
    CHECK(d.profiled.size() == 51);  // every launch is a pass of its kernel's sample
    CHECK(doc.kernels.size() == 17); // one sample per 3 launches
    CHECK(doc.incomplete_kernels == 0);
    CHECK(d.fake->starts == 51); // back to back, nothing to share a pass with
}

TEST_CASE("with the warm-up launch, back-to-back repeats need one launch more than passes") {
    // bench_roofline_vs_ncu --repeat 4, as the launches-mode benches run it.
    driver d(std::make_unique<fake_user_ranges>(), three_pass_set(), every_kernel(), 1);
    for (const char* k : {"x", "y"})
        for (int r = 0; r < 4; ++r)
            d.launch(k);
    CHECK(d.profiled == std::vector<std::string>{"x@1", "x@2", "x@3", "y@5", "y@6", "y@7"});
    const auto doc = d.s.finish();
    CHECK(doc.kernels.size() == 2);
    CHECK(doc.incomplete_kernels == 0);
}
