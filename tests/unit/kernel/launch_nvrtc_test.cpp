// The launcher through real NVRTC compiles (sm_90, no GPU) onto the fake driver: a config is
// compiled once per process and once per cubin cache, the geometry and the parameters reach
// the driver as the spec says, concurrent launches agree, and a capture is written once per
// problem in the golden form and read back.
#include "catch.hpp"

#include "launch_test_support.hpp"

#include "ktune/kernel/capture.hpp"

#include <cstring>
#include <thread>

using namespace ktune::kernel;
using namespace ktune::kernel::testing;
using ktune::cache::lookup_tier;

namespace {

const ktune::config tuned_cfg{{"BLOCK", std::int64_t{256}}, {"VEC", std::int64_t{2}}};

launcher_options with_cache(const temp_dir& t, std::shared_ptr<fake_launch_driver> d) {
    const kernel_spec s = load_spec(launcher_data() / "scale.json");
    ktune::cache::write_cache(t.path / "tuned.json",
                              std::vector<ktune::cache::entry>{tuned(s, "N=1024", tuned_cfg)});
    return fake_options(t, std::move(d));
}

template <class T>
std::string bytes_of(const T& v) {
    return {reinterpret_cast<const char*>(&v), sizeof v};
}

/// Stands in for the kernel: y[i] = 2 x[i] for the n of the parameters.
void run_scale(const recorded_launch& r) {
    const float* x = nullptr;
    float* y = nullptr;
    std::int32_t n = 0;
    std::memcpy(&x, r.params[0].data(), sizeof x);
    std::memcpy(&y, r.params[1].data(), sizeof y);
    std::memcpy(&n, r.params[2].data(), sizeof n);
    for (std::int32_t i = 0; i < n; ++i)
        y[i] = 2.0f * x[i];
}

} // namespace

TEST_CASE("a config compiles once per process and once per cubin cache; params marshal in order") {
    temp_dir t("compile");
    auto d = std::make_shared<fake_launch_driver>();
    const launcher_options o = with_cache(t, d);
    launcher l(launcher_data() / "scale.json", o);
    std::vector<float> x(4096, 1.0f), y(4096);
    auto* stream = reinterpret_cast<CUstream_st*>(0x5); // passed through untouched
    const std::int64_t stride = 1;
    for (std::int64_t n : {1000, 1000, 3000}) { // exact, exact, nearest: one config
        const std::int64_t dims[] = {n};
        l.launch(dims, {x.data(), y.data(), static_cast<std::int32_t>(n), stride}, stream);
    }
    CHECK(l.stats().nvrtc_compiles == 1);
    CHECK(l.stats().modules == 1);
    REQUIRE(d->launches.size() == 3);
    REQUIRE(d->functions.size() == 1);
    CHECK(d->functions[0].find("scale") != std::string::npos); // the lowered name
    CHECK(d->shared_opt_ins.size() == 1);
    CHECK(d->shared_opt_ins[0].second == 1024);
    const std::int64_t n3000[] = {3000};
    const recorded_launch& r = d->launches[2];
    CHECK(r.geo == l.plan_for(n3000).geo);
    CHECK(r.geo.grid[0] == 6); // ceil_div(3000, 256 * 2)
    CHECK(r.stream == stream);
    REQUIRE(r.params.size() == 4);
    CHECK(r.params[0] == bytes_of(static_cast<const float*>(x.data())));
    CHECK(r.params[1] == bytes_of(y.data()));
    CHECK(r.params[2] == bytes_of(std::int32_t{3000})); // 4 bytes: the spec's int32
    CHECK(r.params[3] == bytes_of(std::int64_t{1}));    // 8 bytes: int64

    const std::int64_t n1001[] = {1001}; // the default config: a second compile
    l.launch(n1001, {x.data(), y.data(), std::int32_t{1001}, stride}, stream);
    CHECK(l.stats().nvrtc_compiles == 2);
    CHECK(d->launches.back().geo.grid[0] == 8); // ceil_div(1001, 128)

    // Another process on the same cubin cache compiles nothing.
    auto d2 = std::make_shared<fake_launch_driver>();
    launcher_options o2 = o;
    o2.driver = d2;
    launcher again(launcher_data() / "scale.json", o2);
    const std::int64_t n1000[] = {1000};
    again.prepare(n1000);
    CHECK(again.stats().nvrtc_compiles == 0);
    CHECK(again.stats().cubin_hits == 1);
    CHECK(d2->cubins.size() == 1);
    CHECK(d2->cubins[0] == d->cubins[0]);
}

TEST_CASE("two threads launching through one launcher compile each config once") {
    temp_dir t("threads");
    auto d = std::make_shared<fake_launch_driver>();
    launcher l(launcher_data() / "scale.json", with_cache(t, d));
    std::vector<float> x(4096), y(4096);
    auto work = [&](int seed) {
        for (int i = 0; i < 200; ++i) {
            const std::int64_t n =
                std::array<std::int64_t, 4>{1000, 3000, 1001, 2000}[(i + seed) % 4];
            const std::int64_t dims[] = {n};
            l.launch(dims, {x.data(), y.data(), static_cast<std::int32_t>(n), std::int64_t{1}},
                     nullptr);
        }
    };
    std::thread a(work, 0), b(work, 1);
    a.join();
    b.join();
    CHECK(d->launches.size() == 400);
    CHECK(l.stats().plans == 4);
    CHECK(l.stats().nvrtc_compiles == 2); // 256x2 (1000, 3000, 2000) and the default (1001)
    CHECK(l.stats().modules == 2);
    CHECK(l.stats().misses_recorded == 1);
    for (const auto& r : d->launches) {
        std::int32_t n = 0;
        std::memcpy(&n, r.params[2].data(), sizeof n);
        const std::int64_t dims[] = {n};
        CHECK(r.geo == l.plan_for(dims).geo);
    }
}

TEST_CASE("capture writes each problem once: inputs before, outputs after, in the golden form") {
    temp_dir t("capture");
    auto d = std::make_shared<fake_launch_driver>();
    d->on_launch = run_scale;
    launcher_options o = with_cache(t, d);
    o.capture_dir = t.path / "captures";
    launcher l(launcher_data() / "scale.json", o);
    CHECK(l.capture_dir() == o.capture_dir);
    std::vector<float> x(8), y(8, -1.0f);
    for (std::size_t i = 0; i < x.size(); ++i)
        x[i] = static_cast<float>(i) + 0.5f;
    const std::int64_t dims[] = {8};
    l.launch(dims, {x.data(), y.data(), std::int32_t{8}, std::int64_t{1}}, nullptr);
    l.launch(dims, {x.data(), y.data(), std::int32_t{8}, std::int64_t{1}}, nullptr);
    CHECK(l.stats().captures == 1);
    CHECK(d->launches.size() == 2);
    // Synchronise, copy the input (x only: y is an output the kernel does not read), launch,
    // copy the output; the second launch is plain.
    CHECK(d->events == std::vector<std::string>{"sync", "copy 32", "launch", "copy 32", "launch"});

    const fs::path dir = o.capture_dir / ("scale-" + l.hash() + "-N8");
    const kernel_capture c = read_capture(dir);
    CHECK(c.kernel == "scale");
    CHECK(c.spec_hash == l.hash());
    CHECK(c.arch == "sm_90");
    CHECK(c.prob == parse_problem("N=8"));
    CHECK(c.tier == "nearest");
    CHECK(c.cfg == tuned_cfg);
    REQUIRE(c.arguments.size() == 4);
    CHECK(c.arguments[0].before == std::string(reinterpret_cast<const char*>(x.data()), 32));
    CHECK_FALSE(c.arguments[0].after);
    CHECK_FALSE(c.arguments[1].before);
    std::vector<float> want(8);
    for (std::size_t i = 0; i < 8; ++i)
        want[i] = 2.0f * x[i];
    CHECK(c.arguments[1].after == std::string(reinterpret_cast<const char*>(want.data()), 32));
    CHECK(c.arguments[2].value == 8);
    CHECK(c.arguments[3].value == 1);
    const std::string text = replace_all(read_text(dir / "capture.json"), l.hash(), "<hash>");
    CHECK(replace_all(text, launcher_data().string(), "<data>") ==
          golden("capture.golden.json", replace_all(text, launcher_data().string(), "<data>")));
    CHECK(write_capture(o.capture_dir, c).empty()); // never over an existing capture

    // A data file of the wrong size is named.
    std::ofstream(dir / "1-y.out", std::ios::binary | std::ios::trunc) << "short";
    try {
        (void)read_capture(dir);
        FAIL("no error");
    } catch (const ktune::error& e) {
        CHECK(std::string(e.what()).find("1-y.out: 5 bytes, capture.json says 32") !=
              std::string::npos);
    }
}

TEST_CASE("a spec's cluster dimensions reach the driver with the launch") {
    temp_dir t("cluster");
    auto d = std::make_shared<fake_launch_driver>();
    launcher l(launcher_data() / "cluster.json", fake_options(t, d));
    std::vector<float> x(1000), y(1000);
    const std::int64_t dims[] = {1000};
    l.launch(dims, {x.data(), y.data(), std::int32_t{1000}, std::int64_t{1}}, nullptr);
    REQUIRE(d->launches.size() == 1);
    CHECK(d->launches[0].geo == geometry{{8, 1, 1}, {128, 1, 1}, 512, {2, 1, 1}});
}
