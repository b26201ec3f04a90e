// The trace adapter of ktune diff: a .ktrace written with the trace module's writer becomes
// per-kernel distributions keyed by demangled name and launch shape.
#include "catch.hpp"

#include "ktune/guard/compare.hpp"
#include "ktune/guard/series.hpp"
#include "ktune/trace/trace_file.hpp"

#include <cstdio>
#include <string>
#include <vector>

using namespace ktune;

namespace {

// `slow` scales the durations of axpy; `shape2` relaunches scale with another grid.
std::string write_trace(const std::string& path, double slow, std::uint32_t grid2) {
    trace::trace_environment env;
    env.host = "h";
    env.driver_version = "580.159.04";
    env.toolkit_version = 13000;
    trace::gpu_identity g;
    g.name = "NVIDIA H200";
    g.cc_major = 9;
    env.gpus.push_back(g);
    trace::trace_writer w(path, env);
    const auto axpy = w.intern("_Z4axpyPfS_f");
    const auto scale = w.intern("_Z5scalePf");
    std::vector<trace::kernel_record> ks;
    std::uint64_t t = 1000;
    for (int i = 0; i < 40; ++i) {
        trace::kernel_record a;
        a.name_id = axpy;
        a.grid = {1024, 1, 1};
        a.block = {256, 1, 1};
        a.start_ns = t;
        a.end_ns = t + static_cast<std::uint64_t>((10000 + 37 * (i % 11)) * slow);
        t = a.end_ns + 500;
        ks.push_back(a);
        trace::kernel_record s = a;
        s.name_id = scale;
        s.grid = {grid2, 1, 1};
        s.start_ns = t;
        s.end_ns = t + 3000 + 13 * (i % 7);
        t = s.end_ns + 500;
        ks.push_back(s);
    }
    w.write(ks);
    trace::trace_counters c;
    c.kernels = ks.size();
    w.finish(env, c);
    return path;
}

} // namespace

TEST_CASE("traces become per-kernel launch distributions weighted by GPU time") {
    const auto base = write_trace("guard_base.ktrace", 1.0, 64);
    const auto cand = write_trace("guard_cand.ktrace", 1.06, 128);
    const auto s = guard::load_series({base});
    REQUIRE(s.items.size() == 2);
    const auto& axpy = s.items[0].name.starts_with("axpy") ? s.items[0] : s.items[1];
    CHECK(axpy.name == "axpy(float*, float*, float)");
    CHECK(axpy.shape == "grid(1024,1,1) block(256,1,1)");
    CHECK(axpy.samples.size() == 40);
    CHECK(axpy.launches_per_run == 40);
    CHECK(axpy.gpu_time_share > 0.7);
    CHECK(s.env.gpu == "NVIDIA H200");
    CHECK(s.env.arch == "sm_90");

    const auto r = guard::compare(s, guard::load_series({cand}));
    CHECK(r.exit_code() == 1);
    for (const auto& k : r.keys) {
        if (k.name.starts_with("axpy")) {
            CHECK(k.result == guard::verdict::slower);
            CHECK(k.why == guard::cause::kernel_time);
        } else {
            CHECK(k.base_shape == "grid(64,1,1) block(256,1,1)"); // matched across the shape change
            CHECK(k.result == guard::verdict::same);
        }
    }
    std::remove(base.c_str());
    std::remove(cand.c_str());
}
