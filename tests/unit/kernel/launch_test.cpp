// The launcher without compiling anything: cache tiers, launch geometry from the spec's
// expressions, argument errors, the misses file and the cache key.
#include "catch.hpp"

#include "launch_test_support.hpp"
#include "processes.hpp"

#include "ktune/core/env.hpp"
#include "ktune/core/error.hpp"
#include "ktune/kernel/capture.hpp"
#include "ktune/kernel/launch_misses.hpp"

#include <fmt/format.h>

#include <set>

using namespace ktune::kernel;
using namespace ktune::kernel::testing;
using ktune::cache::lookup_tier;

namespace {

const ktune::config tuned_cfg{{"BLOCK", std::int64_t{256}}, {"VEC", std::int64_t{2}}};

/// A launcher of scale.json over a cache holding one entry, tuned at N=1024 (bucket 1024).
launcher scale_launcher(const temp_dir& t, const ktune::cache::environment& env = sm90()) {
    const kernel_spec s = load_spec(launcher_data() / "scale.json");
    ktune::cache::write_cache(t.path / "tuned.json",
                              std::vector<ktune::cache::entry>{tuned(s, "N=1024", tuned_cfg)});
    return launcher(s, fake_options(t, std::make_shared<fake_launch_driver>(), env));
}

std::string message_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const ktune::error& e) {
        CHECK(e.kind() == ktune::error_kind::input);
        return e.what();
    }
    FAIL("no error");
    return {};
}

} // namespace

TEST_CASE("the key of a user kernel carries its name, spec hash, dtype, bucket and environment") {
    const kernel_spec s = load_spec(launcher_data() / "scale.json");
    const auto k = kernel_cache_key(s, parse_problem("N=1000"), sm90());
    CHECK(k.op == "scale");
    CHECK(k.op_version == spec_hash(s));
    CHECK(k.dtype == "fp32");
    CHECK(k.bucket == std::vector<std::int64_t>{1024}); // pow2
    CHECK(k.arch == "sm_90");
    CHECK(k.toolkit == 13000);
    CHECK(k.driver_major == 580);
    CHECK_THROWS_AS(kernel_cache_key(s, parse_problem("M=4"), sm90()), ktune::error);
}

TEST_CASE("each tier answers where it should: exact, nearest, default") {
    temp_dir t("tiers");
    launcher l = scale_launcher(t);
    const std::int64_t n1000[] = {1000}, n3000[] = {3000};
    const launch_plan& exact = l.plan_for(n1000);
    CHECK(exact.tier == lookup_tier::exact);
    CHECK(exact.cfg == tuned_cfg);
    CHECK(exact.fallback_reason.empty());
    const launch_plan& nearest = l.plan_for(n3000); // bucket 4096: the 1024 entry is nearest
    CHECK(nearest.tier == lookup_tier::nearest);
    CHECK(nearest.cfg == tuned_cfg);
    // The plan is resolved once: the same object answers again.
    CHECK(&l.plan_for(n1000) == &exact);
    CHECK(&l.plan_for(parse_problem("N=1000")) == &exact);
    CHECK(l.stats().plans == 2);
    CHECK(l.stats().misses_recorded == 0);

    temp_dir t80("tiers80"); // another arch: no entry of its family, the default answers
    launcher other = scale_launcher(t80, {"sm_80", 13000, 580, 1});
    const launch_plan& d = other.plan_for(n1000);
    CHECK(d.tier == lookup_tier::op_default);
    CHECK(d.cfg.get<std::int64_t>("BLOCK") == 128);
    CHECK(d.fallback_reason.empty());
    CHECK(other.stats().misses_recorded == 1);
}

TEST_CASE("a tuned config that is invalid for the problem falls back to the default, saying why") {
    temp_dir t("fallback");
    launcher l = scale_launcher(t);
    const std::int64_t n[] = {1001}; // bucket 1024 is exact, but VEC=2 fails N % VEC == 0
    const launch_plan& p = l.plan_for(n);
    CHECK(p.tier == lookup_tier::op_default);
    CHECK(p.cfg.get<std::int64_t>("VEC") == 1);
    CHECK(p.fallback_reason.find("N % VEC == 0") != std::string::npos);
    CHECK(p.fallback_reason.find("exact") != std::string::npos);
    CHECK(l.stats().misses_recorded == 1);
}

TEST_CASE("the launch geometry is the spec's expressions evaluated for the problem") {
    temp_dir t("geometry");
    launcher l = scale_launcher(t);
    const std::int64_t n[] = {1000};
    const launch_plan& p = l.plan_for(n); // BLOCK=256, VEC=2
    CHECK(p.geo.grid[0] == 2);            // ceil_div(1000, 512)
    CHECK(p.geo.block[0] == 256);
    CHECK(p.geo.shared_bytes == 1024); // 4 * BLOCK
    CHECK(p.buffer_bytes == std::vector<std::int64_t>{4000, 4000, 0, 0});

    launcher_options o = fake_options(t, std::make_shared<fake_launch_driver>());
    o.cache_file = t.path / "empty.json";
    launcher mm(fs::path(KTUNE_EXAMPLES_DATA_DIR).parent_path() / "kernels/matmul/matmul.json", o);
    const launch_plan& m = mm.plan_for(parse_problem("M=1000,N=500,K=64"));
    CHECK(m.tier == lookup_tier::op_default); // TILE 32x32x8, WPT 2x2, no padding
    CHECK(m.geo == geometry{{16, 32, 1}, {16, 16, 1}, 4 * 8 * (32 + 32), {1, 1, 1}});
    CHECK(m.buffer_bytes ==
          std::vector<std::int64_t>{4 * 1000 * 64, 4 * 64 * 500, 4 * 1000 * 500, 0, 0, 0});
    CHECK(m.key.bucket == std::vector<std::int64_t>{1024, 512, 64});
}

TEST_CASE("bad arguments and problems are errors that name the argument and what to pass") {
    temp_dir t("badargs");
    launcher l = scale_launcher(t);
    const std::int64_t n[] = {1000};
    std::vector<float> x(1000), y(1000);
    const std::int32_t n32 = 1000;
    const std::int64_t one = 1;
    const auto count = message_of([&] { l.launch(n, {x.data(), y.data(), n32}, nullptr); });
    CHECK(count.find("got 3 arguments, the spec declares 4 (x, y, n, stride)") !=
          std::string::npos);
    const auto type = message_of([&] { l.launch(n, {x.data(), y.data(), one, one}, nullptr); });
    CHECK(type.find("argument 2 'n' is a scalar int32") != std::string::npos);
    CHECK(type.find("got a scalar int64: pass a std::int32_t") != std::string::npos);
    const auto buf = message_of([&] { l.launch(n, {n32, y.data(), n32, one}, nullptr); });
    CHECK(buf.find("argument 0 'x' is a buffer") != std::string::npos);
    CHECK(buf.find("pass a device pointer") != std::string::npos);
    const auto ptr = message_of([&] { l.launch(n, {x.data(), y.data(), x.data(), one}, nullptr); });
    CHECK(ptr.find("got a pointer") != std::string::npos);
    const std::int64_t two[] = {1, 2}, zero[] = {0};
    CHECK(message_of([&] { (void)l.plan_for(two); }).find("2 dimensions given, the spec has 1") !=
          std::string::npos);
    CHECK(message_of([&] { (void)l.plan_for(zero); }).find("at least 1") != std::string::npos);
    CHECK_THROWS_AS(l.plan_for(parse_problem("M=3")), ktune::error);
}

TEST_CASE("a miss is recorded once per distinct problem, across launchers, in the golden form") {
    temp_dir t("misses");
    const std::int64_t a[] = {1001}, b[] = {5};
    {
        launcher l = scale_launcher(t);
        (void)l.plan_for(a);
        (void)l.plan_for(a);
        (void)l.plan_for(b); // bucket 8: nearest is 1024's VEC=2, invalid at N=5
        CHECK(l.stats().misses_recorded == 2);
    }
    launcher again = scale_launcher(t); // a new process would see the same file
    (void)again.plan_for(a);
    CHECK(again.stats().misses_recorded == 0);
    const auto ms = read_misses(again.misses_file());
    REQUIRE(ms.size() == 2);
    CHECK(ms[0].problem == "N=1001");
    CHECK(ms[0].bucket == "N=1024");
    CHECK(ms[1].problem == "N=5");
    CHECK(ms[0].spec_hash == again.hash());
    const std::string text =
        replace_all(read_text(again.misses_file()), launcher_data().string(), "<data>");
    CHECK(text == golden("misses.golden.jsonl", text));
}

TEST_CASE("the misses file reader names the line of a bad entry") {
    temp_dir t("missread");
    const fs::path f = t.path / "m.jsonl";
    std::ofstream(f) << read_text(launcher_data() / "misses.golden.jsonl") << "{\"schema\": 3}\n";
    try {
        (void)read_misses(f);
        FAIL("no error");
    } catch (const ktune::error& e) {
        CHECK(std::string(e.what()).find(f.string() + ":3:") != std::string::npos);
    }
    CHECK(read_misses(t.path / "none.jsonl").empty());
    launch_miss m{"k", "s.json", "00", "N=1", "N=1", "fp32", "sm_90", 13000, 580, 1};
    CHECK(parse_miss_line(miss_line(m), "x") == m);
    CHECK(record_miss(f, m));
    CHECK_FALSE(record_miss(f, m));
    CHECK(record_miss(t.path / "new" / "dir" / "m.jsonl", m)); // the directory is created
}

TEST_CASE("processes appending to one misses file leave each problem once, every line whole") {
    temp_dir t("missprocs");
    const fs::path f = t.path / "m.jsonl";
    constexpr int procs = 6, problems = 20;
    // Every process records the same problems, in its own order.
    ktune_test::run_in_processes(procs, [&](int p) {
        for (int i = 0; i < problems; ++i) {
            const int n = (i * 7 + p * 3) % problems + 1;
            (void)record_miss(f, {"k", "s.json", "00", fmt::format("N={}", n), "N=1", "fp32",
                                  "sm_90", 13000, 580, 1});
        }
    });
    const auto ms = read_misses(f); // throws on a torn line
    CHECK(ms.size() == static_cast<std::size_t>(problems));
    std::set<std::string> seen;
    for (const auto& m : ms)
        seen.insert(m.problem);
    CHECK(seen.size() == static_cast<std::size_t>(problems));
}

TEST_CASE("a capture whose data file is a path elsewhere is refused") {
    temp_dir t("captrav");
    fs::copy_file(fs::path(KTUNE_TEST_DATA_DIR).parent_path() /
                      "fuzz/corpus/launch_files/traversal.json",
                  t.path / "capture.json");
    std::ofstream(t.path.parent_path() / "x") << "1234"; // what "../x" would reach
    try {
        (void)read_capture(t.path);
        FAIL("no error");
    } catch (const ktune::error& e) {
        CHECK(e.kind() == ktune::error_kind::input);
        CHECK(std::string(e.what()).find("\"../x\" is not a file name") != std::string::npos);
    }
    fs::remove(t.path.parent_path() / "x");
}

TEST_CASE("KTUNE_CAPTURE turns capture on where the options name no directory") {
    temp_dir t("capenv");
    ::setenv(ktune::env::capture, (t.path / "caps").c_str(), 1);
    launcher on = scale_launcher(t);
    ::unsetenv(ktune::env::capture);
    CHECK(on.capture_dir() == t.path / "caps");
    launcher off = scale_launcher(t);
    CHECK(off.capture_dir().empty());
}
