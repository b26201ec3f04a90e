// NVTX through ktune's own hooks, and kernels attributed to the range open on the launching
// thread: synthetic NVTX calls + CUPTI launch callbacks + kernel records through the seam.
#include "catch.hpp"
#include "fake_cupti.hpp"
#include "trace/nvtx_hooks.hpp"
#include "trace_collector.hpp"

#include "ktune/analysis/aggregate.hpp"
#include "ktune/analysis/top.hpp"
#include "ktune/trace/session.hpp"
#include "ktune/trace/trace_file.hpp"

#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <thread>
#include <unistd.h>

using namespace ktune;
using namespace ktune::trace;
namespace td = ktune::trace::detail;

namespace {

std::string temp_path(const char* name) {
    return (std::filesystem::temp_directory_path() /
            (std::string("ktune_nvtx_") + std::to_string(::getpid()) + "_" + name))
        .string();
}

session_options opts(const std::string& path) {
    session_options o;
    o.output = path;
    return o;
}

const char k_step[] = "_Z4stepPf";
const char k_other[] = "_Z5otherPf";
constexpr auto rt = CUPTI_CB_DOMAIN_RUNTIME_API;
constexpr auto launch = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
constexpr auto graph_launch = CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000;

std::string name_of(const trace_reader& r, std::uint32_t plus1) {
    return plus1 ? r.string(plus1 - 1).mangled : "";
}

} // namespace

namespace {

void check_attribution(nvtx_link mode, bool kernels_first) {
    const auto path = temp_path("attr.ktrace");
    auto owner = std::make_unique<test::fake_cupti>();
    auto* fake = owner.get();
    fake->now_ns = 50; // CUPTI's clock: the kernels below run after the session started
    auto o = opts(path);
    o.link = mode;
    session s(o, std::move(owner));
    REQUIRE(s.start());
    // A program without NVTX pays nothing: no launch callback or API record before the first
    // push.
    CHECK(fake->callbacks.empty());
    CHECK_FALSE(fake->api_record_on(rt, launch));
    fake->launch(rt, launch, 1, true);

    td::nvtx_push("train");
    if (mode == nvtx_link::external_correlation) {
        CHECK(fake->callbacks.empty()); // nothing of ktune's runs per launch
        CHECK(fake->api_record_on(rt, launch));
        CHECK(fake->api_record_on(rt, graph_launch));
        CHECK_FALSE(fake->api_record_on(rt, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020));
        CHECK_FALSE(fake->api_record_on(CUPTI_CB_DOMAIN_DRIVER_API,
                                        CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent));
    } else {
        CHECK_FALSE(fake->callbacks.empty());
        CHECK_FALSE(fake->api_record_on(rt, launch));
    }
    fake->launch(rt, launch, 2, true); // in train; its nested driver call is not a kernel
    td::nvtx_push("forward");
    fake->launch(rt, launch, 3);       // in train/forward
    fake->launch(rt, graph_launch, 4); // a graph: all its kernels share id 4
    // Another thread with no open range launches in between: not attributed.
    std::thread([&] { fake->launch(rt, launch, 5); }).join();
    td::nvtx_pop();
    td::nvtx_mark("checkpoint");
    td::nvtx_pop();
    td::nvtx_pop(); // unbalanced pop: ignored, no crash
    fake->launch(rt, launch, 6);
    // A driver launch (Triton, cuBLAS) inside a range.
    td::nvtx_push("driver");
    fake->launch(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 7);
    td::nvtx_pop();
    if (mode == nvtx_link::external_correlation) CHECK(fake->pops == 3);

    fake->add(test::make_kernel(k_other, 100, 200, 1));
    fake->add(test::make_kernel(k_step, 300, 400, 2));
    fake->add(test::make_kernel(k_step, 500, 800, 3));
    fake->add(test::make_kernel(k_other, 900, 1000, 4));
    fake->add(test::make_kernel(k_other, 1000, 1100, 4));
    fake->add(test::make_kernel(k_other, 1200, 1300, 5));
    fake->add(test::make_kernel(k_other, 1400, 1500, 6));
    fake->add(test::make_kernel(k_other, 1600, 1700, 7));
    // CUPTI may complete the kernels' buffer before the launching thread's API records.
    if (kernels_first) fake->deliver();
    s.stop();
    // A program still in ranges after recording stops pays nothing more.
    CHECK_FALSE(fake->api_record_on(rt, launch));
    CHECK(fake->callbacks.empty());
    REQUIRE(s.save());

    trace_reader r(path);
    CHECK(r.minor_version() == format_minor);
    // Whoever reads the trace learns how its kernels got their range.
    const char* names[] = {"callback", "external_correlation", "locked_map", "window"};
    CHECK(r.environment().nvtx_link == names[static_cast<int>(mode)]);
    test::trace_collector c;
    const auto st = r.read(c);
    REQUIRE(st.complete);
    REQUIRE(c.kernels.size() == 8);
    std::map<std::uint32_t, std::vector<std::pair<std::string, std::string>>> by_corr;
    for (const auto& k : c.kernels)
        by_corr[k.correlation].emplace_back(name_of(r, k.nvtx_range), name_of(r, k.nvtx_path));
    CHECK(by_corr[1][0].first.empty());
    CHECK(by_corr[2][0] == std::make_pair(std::string("train"), std::string("train")));
    CHECK(by_corr[3][0] == std::make_pair(std::string("forward"), std::string("train/forward")));
    REQUIRE(by_corr[4].size() == 2);
    CHECK(by_corr[4][0].second == "train/forward");
    CHECK(by_corr[4][1].second == "train/forward");
    CHECK(by_corr[5][0].first.empty());
    CHECK(by_corr[6][0].first.empty());
    CHECK(by_corr[7][0].first == "driver");
    // Ranges and the mark are records of their own.
    CHECK(c.nvtx.size() == 4);
    CHECK(st.counters.nvtx_ranges == 4);
    CHECK(st.counters.kernels == 8);

    const auto byr = analysis::aggregate({path}, analysis::group_by::nvtx);
    CHECK_FALSE(byr.nvtx_host_time);
    REQUIRE(byr.rows.size() == 4);
    CHECK(byr.rows[0].name == "forward"); // 300 + 100 + 100 ns
    CHECK(byr.rows[0].stats.total_ns == 500);
    CHECK(byr.rows[0].stats.count == 3);
    CHECK(byr.rows[1].name == "(no NVTX range)"); // 100 * 3
    CHECK(byr.rows[1].stats.total_ns == 300);
    CHECK(byr.rows[0].share == Approx(500.0 / 1000));
    const auto byp = analysis::aggregate({path}, analysis::group_by::nvtx_path);
    REQUIRE(byp.rows.size() == 4);
    CHECK(byp.rows[0].name == "train/forward");
    std::filesystem::remove(path);
}

} // namespace

TEST_CASE("kernels carry the NVTX range open on the launching thread; top ranks by it") {
    SECTION("launch callbacks into per-thread rings") {
        // The default, window, has its own tests below (markers take correlation ids).
        CHECK(session_options{}.link == nvtx_link::window);
        check_attribution(nvtx_link::callback, false);
    }
    SECTION("external correlation") {
        check_attribution(nvtx_link::external_correlation, false);
    }
    SECTION("external correlation, kernels' buffer completed before the API records") {
        check_attribution(nvtx_link::external_correlation, true);
    }
    SECTION("launch callbacks, kernels' buffer completed first") {
        check_attribution(nvtx_link::callback, true);
    }
    SECTION("launch callbacks into a locked map") {
        check_attribution(nvtx_link::locked_map, true);
    }
}

TEST_CASE("window links: one marker per range boundary, nothing per launch") {
    const auto path = temp_path("window.ktrace");
    auto owner = std::make_unique<test::fake_cupti>();
    auto* fake = owner.get();
    fake->now_ns = 50;
    auto o = opts(path);
    o.link = nvtx_link::window;
    session s(o, std::move(owner));
    REQUIRE(s.start());
    fake->launch(rt, launch, 10);
    td::nvtx_push("train");
    // Only the marker's callback is on: launches reach neither CUPTI callbacks nor API records.
    REQUIRE(fake->callbacks.size() == 1);
    CHECK(fake->callbacks[0].second == CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion);
    CHECK_FALSE(fake->api_record_on(rt, launch));
    CHECK(fake->markers == 1);
    fake->launch(rt, launch, 20);
    td::nvtx_push("forward");
    fake->launch(rt, launch, 30);
    fake->launch(rt, graph_launch, 40); // graph kernels share their launch's id
    td::nvtx_pop();
    fake->launch(rt, launch, 50); // back in train
    // A helper thread's range while train is open: launch callbacks from then on (the
    // fall-back test below); this thread's launches stay in train.
    std::thread([] {
        td::nvtx_push("helper");
        td::nvtx_pop();
    }).join();
    fake->launch(rt, launch, 55);
    td::nvtx_pop();
    fake->launch(rt, launch, 60); // outside any range
    // 3 boundaries and the fall-back's marker (the helper's push); none after the fall-back.
    CHECK(fake->markers == 4);
    for (const std::uint32_t c : {10u, 20u, 30u, 40u, 40u, 50u, 55u, 60u})
        fake->add(test::make_kernel(k_step, c * 10, c * 10 + 5, c));
    fake->deliver(); // the kernels' buffer may come first: boundaries are already published
    s.stop();
    CHECK(fake->callbacks.empty()); // the marker's callback is off again
    REQUIRE(s.save());
    trace_reader r(path);
    CHECK(r.environment().nvtx_link == "window");
    test::trace_collector c;
    REQUIRE(r.read(c).complete);
    std::vector<std::string> paths;
    for (const auto& k : c.kernels)
        paths.push_back(name_of(r, k.nvtx_path));
    CHECK(paths == std::vector<std::string>{"", "train", "train/forward", "train/forward",
                                            "train/forward", "train", "train", ""});
    // ktune top says how these kernels got their ranges.
    const auto text =
        analysis::format_top(analysis::aggregate({path}, analysis::group_by::nvtx), 5);
    CHECK(text.find("range boundaries (window") != std::string::npos);
    std::filesystem::remove(path);
}

TEST_CASE("window links: a full ring's boundaries reach the collector in order") {
    // More boundaries between two CUPTI buffers than a ring holds (8 Ki): the ring is set
    // aside, not lost, and the kernels still find their ranges.
    const auto path = temp_path("window_spill.ktrace");
    auto owner = std::make_unique<test::fake_cupti>();
    auto* fake = owner.get();
    fake->now_ns = 50;
    auto o = opts(path);
    o.link = nvtx_link::window;
    session s(o, std::move(owner));
    REQUIRE(s.start());
    td::nvtx_push("outer");
    std::vector<std::pair<std::uint32_t, std::string>> expect;
    for (int i = 0; i < 5000; ++i) { // 10 000 boundaries
        td::nvtx_push("short");
        if (i % 1000 == 999) {
            expect.emplace_back(fake->last_correlation + 1, "outer/short");
            fake->launch(rt, launch, expect.back().first);
        }
        td::nvtx_pop();
        if (i % 1000 == 500) {
            expect.emplace_back(fake->last_correlation + 1, "outer");
            fake->launch(rt, launch, expect.back().first);
        }
    }
    td::nvtx_pop();
    for (const auto& [c, _] : expect)
        fake->add(test::make_kernel(k_step, c * 10, c * 10 + 5, c));
    fake->deliver();
    s.stop();
    REQUIRE(s.save());
    trace_reader r(path);
    test::trace_collector c;
    REQUIRE(r.read(c).complete);
    REQUIRE(c.kernels.size() == expect.size());
    for (std::size_t i = 0; i < expect.size(); ++i)
        CHECK(name_of(r, c.kernels[i].nvtx_path) == expect[i].second);
    std::filesystem::remove(path);
}

TEST_CASE("window links: ranges open on two threads at once fall back to launch callbacks") {
    // Window boundaries say which range the process is in, not which thread launched: once a
    // second thread opens a range, each launch carries its own thread's range from then on.
    const auto path = temp_path("window_fallback.ktrace");
    auto owner = std::make_unique<test::fake_cupti>();
    auto* fake = owner.get();
    fake->now_ns = 50;
    auto o = opts(path);
    o.link = nvtx_link::window;
    session s(o, std::move(owner));
    REQUIRE(s.start());
    std::vector<std::uint32_t> ids;
    const auto launch_next = [&] {
        ids.push_back(fake->last_correlation + 1);
        fake->launch(rt, launch, ids.back());
    };
    td::nvtx_push("step");
    launch_next(); // window: step
    CHECK(fake->callbacks.size() == 1);
    std::mutex m;
    std::condition_variable cv;
    int stage = 0;
    const auto wait_for = [&](int st) {
        std::unique_lock lock(m);
        cv.wait(lock, [&] { return stage == st; });
    };
    const auto go = [&](int st) {
        {
            std::lock_guard lock(m);
            stage = st;
        }
        cv.notify_all();
    };
    std::thread b([&] {
        td::nvtx_push("helper"); // a second thread with a range open: fall back
        launch_next();           // helper
        go(1);
        wait_for(2);
        td::nvtx_pop();
        launch_next(); // outside any range on this thread (window alone: step)
        go(3);
    });
    wait_for(1);
    CHECK(fake->callbacks.size() > 1); // the launch callbacks are on
    launch_next();                     // step (window alone: helper, the last boundary)
    go(2);
    wait_for(3);
    b.join();
    td::nvtx_pop();
    launch_next(); // no range
    for (const auto c : ids)
        fake->add(test::make_kernel(k_step, c * 10, c * 10 + 5, c));
    fake->deliver();
    s.stop();
    CHECK(fake->callbacks.empty()); // marker and launch callbacks off again
    REQUIRE(s.save());
    trace_reader r(path);
    test::trace_collector c;
    REQUIRE(r.read(c).complete);
    std::vector<std::string> paths;
    for (const auto& k : c.kernels)
        paths.push_back(name_of(r, k.nvtx_path));
    CHECK(paths == std::vector<std::string>{"step", "helper", "step", "", ""});
    std::filesystem::remove(path);
}

TEST_CASE("window links: a thread that exited inside a range does not force the fall-back") {
    const auto path = temp_path("window_exited.ktrace");
    auto owner = std::make_unique<test::fake_cupti>();
    auto* fake = owner.get();
    fake->now_ns = 50;
    auto o = opts(path);
    o.link = nvtx_link::window;
    session s(o, std::move(owner));
    REQUIRE(s.start());
    std::thread([] { td::nvtx_push("never closed"); }).join();
    td::nvtx_push("step");              // the only thread with a range open now
    CHECK(fake->callbacks.size() == 1); // the marker's: no launch callbacks
    td::nvtx_pop();
    s.stop();
    REQUIRE(s.save());
    std::filesystem::remove(path);
}

TEST_CASE("a message buffer reused for another text names another range") {
    const auto path = temp_path("reuse.ktrace");
    session s(opts(path), std::make_unique<test::fake_cupti>());
    REQUIRE(s.start());
    char buf[16] = "alpha"; // Python's range_push hands over a buffer it reuses
    td::nvtx_push(buf);
    td::nvtx_pop();
    std::snprintf(buf, sizeof buf, "beta");
    td::nvtx_push(buf);
    td::nvtx_pop();
    td::nvtx_push(buf);
    td::nvtx_pop();
    s.stop();
    REQUIRE(s.save());
    trace_reader r(path);
    test::trace_collector c;
    r.read(c);
    REQUIRE(c.nvtx.size() == 3);
    CHECK(r.string(c.nvtx[0].name_id).mangled == "alpha");
    CHECK(r.string(c.nvtx[1].name_id).mangled == "beta");
    CHECK(r.string(c.nvtx[2].name_id).mangled == "beta");
    std::filesystem::remove(path);
}

TEST_CASE("NVTX ranges pushed while nothing records stay balanced and unrecorded") {
    td::nvtx_push("before");
    const auto path = temp_path("late.ktrace");
    auto owner = std::make_unique<test::fake_cupti>();
    auto* fake = owner.get();
    session s(opts(path), std::move(owner));
    REQUIRE(s.start());
    fake->launch(rt, launch, 1); // callbacks are still off: "before" opened unrecorded
    td::nvtx_push("inside");
    td::nvtx_pop();
    // "train" was interned by an earlier session on this thread: its id here is a new one.
    td::nvtx_push("train");
    td::nvtx_pop();
    td::nvtx_pop(); // closes "before": nothing recorded for it
    fake->add(test::make_kernel(k_step, 10, 20, 1));
    s.stop();
    REQUIRE(s.save());
    trace_reader r(path);
    test::trace_collector c;
    r.read(c);
    REQUIRE(c.nvtx.size() == 2);
    CHECK(r.string(c.nvtx[0].name_id).mangled == "inside");
    CHECK(r.string(c.nvtx[1].name_id).mangled == "train");
    REQUIRE(c.kernels.size() == 1);
    CHECK(c.kernels[0].nvtx_range == 0);
    std::filesystem::remove(path);
}

TEST_CASE("a format 1.0 trace (no NVTX columns) still reads; top by nvtx uses host time") {
    const std::string path = KTUNE_EXAMPLES_DATA_DIR "/transformer_layer_h200.ktrace";
    trace_reader r(path);
    CHECK(r.minor_version() == 0);
    test::trace_collector c;
    REQUIRE(r.read(c).complete);
    CHECK(c.kernels.size() == 62);
    for (const auto& k : c.kernels)
        CHECK(k.nvtx_range == 0);
    const auto byr = analysis::aggregate({path}, analysis::group_by::nvtx);
    CHECK(byr.nvtx_host_time);
    CHECK_FALSE(byr.rows.empty());
}

TEST_CASE("session hands CUPTI zeroed buffers so it does not zero them on the launching thread") {
    auto owner = std::make_unique<test::fake_cupti>();
    auto* fake = owner.get();
    const auto path = temp_path("zero.ktrace");
    session s(opts(path), std::move(owner));
    REQUIRE(s.start());
    CHECK(std::find(fake->attributes.begin(), fake->attributes.end(),
                    CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER) != fake->attributes.end());
    s.stop();
    s.save();
    std::filesystem::remove(path);
}
