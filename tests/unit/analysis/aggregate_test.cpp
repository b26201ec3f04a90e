// Aggregation, top report and timeline facts over synthetic traces written by trace_writer.
#include "catch.hpp"

#include "analysis/aggregate_quantiles.hpp"
#include "ktune/analysis/aggregate.hpp"
#include "ktune/analysis/timeline.hpp"
#include "ktune/analysis/top.hpp"
#include "ktune/core/error.hpp"
#include "ktune/trace/trace_file.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <random>

using namespace ktune;
using namespace ktune::analysis;
using trace::kernel_record;

namespace {

std::string temp_path(const std::string& name) {
    return (std::filesystem::temp_directory_path() /
            ("ktune_agg_" + std::to_string(::getpid()) + "_" + name))
        .string();
}

kernel_record kernel(std::uint32_t name, std::uint64_t start, std::uint64_t dur,
                     std::uint32_t grid = 128) {
    kernel_record k;
    k.name_id = name;
    k.start_ns = start;
    k.end_ns = start + dur;
    k.grid = {grid, 1, 1};
    k.block = {256, 1, 1};
    return k;
}

// gemm: 4 x 100 us (one at another shape), axpy: 10 x 10 us, back to back with 1 us gaps.
std::string write_trace(const std::string& name) {
    const auto path = temp_path(name);
    trace::trace_environment env;
    env.command_line = {"./app"};
    trace::trace_writer w(path, env);
    const auto gemm = w.intern("_Z4gemmPKfS0_Pf");
    const auto axpy = w.intern("_Z4axpyfPKfPfi");
    const auto step = w.intern("step");
    std::vector<kernel_record> ks;
    std::uint64_t t = 1000;
    for (int i = 0; i < 4; ++i) {
        ks.push_back(kernel(gemm, t, 100000, i == 3 ? 256 : 128));
        t += 100000 + 1000;
        for (int j = 0; j < 2 + (i == 0 ? 2 : 0); ++j) {
            ks.push_back(kernel(axpy, t, 10000));
            t += 10000 + 1000;
        }
    }
    kernel_record untimed = kernel(axpy, 0, 0);
    untimed.flags = trace::flag_no_timestamp;
    ks.push_back(untimed);
    w.write(std::span(ks));
    trace::nvtx_record n;
    n.name_id = step, n.start_ns = 1000, n.end_ns = 200000;
    w.write(std::span(&n, 1));
    w.finish(env, {});
    return path;
}

} // namespace

TEST_CASE("top by kernel: totals, counts, quantiles, shares, order") {
    const auto path = write_trace("a.ktrace");
    const auto r = aggregate({path}, group_by::kernel);
    REQUIRE(r.rows.size() == 2);
    CHECK(r.rows[0].name == "gemm(float const*, float const*, float*)");
    CHECK(r.rows[0].stats.count == 4);
    CHECK(r.rows[0].stats.total_ns == 400000);
    CHECK(r.rows[0].stats.p50_ns == Approx(100000));
    CHECK(r.rows[1].stats.count == 10); // the untimed one is not counted as 0 ns
    CHECK(r.rows[1].stats.total_ns == 100000);
    CHECK(r.rows[0].share == Approx(0.8));
    CHECK(r.rows[1].share == Approx(0.2));
    CHECK(r.untimed == 1);
    CHECK(r.total_ns == 500000);
    CHECK(r.traces.size() == 1);
    CHECK(r.traces[0].complete);
    std::filesystem::remove(path);
}

TEST_CASE("top by launch splits a kernel by shape; by nvtx ranks ranges") {
    const auto path = write_trace("b.ktrace");
    const auto r = aggregate({path}, group_by::launch);
    REQUIRE(r.rows.size() == 3);
    CHECK(r.rows[0].stats.count == 3);
    CHECK(r.rows[0].shape == "grid 128x1x1 block 256x1x1 regs 0 smem 0");
    const auto n = aggregate({path}, group_by::nvtx);
    REQUIRE(n.rows.size() == 1);
    CHECK(n.rows[0].name == "step");
    CHECK(n.rows[0].stats.total_ns == 199000);
    CHECK(n.rows[0].mangled.empty());
    std::filesystem::remove(path);
}

TEST_CASE("many traces aggregate into one ranking") {
    const auto a = write_trace("m1.ktrace");
    const auto b = write_trace("m2.ktrace");
    const auto r = aggregate({a, b}, group_by::kernel);
    REQUIRE(r.rows.size() == 2);
    CHECK(r.rows[0].stats.count == 8);
    CHECK(r.rows[1].stats.count == 20);
    CHECK(r.traces.size() == 2);
    CHECK(r.timeline.kernels == 28);
    std::filesystem::remove(a);
    std::filesystem::remove(b);
}

TEST_CASE("timeline facts: busy share, gaps, launch-bound hint, reordering") {
    timeline_builder t;
    // Out of order within the window; 1 us kernels with 9 us gaps: launch-bound.
    for (int i = 19; i >= 0; --i)
        t.add(0, 10000ull * i, 10000ull * i + 1000);
    timeline_facts f;
    t.finish(f);
    CHECK(f.kernels == 20);
    CHECK(f.span_ns == 191000);
    CHECK(f.busy_ns == 20000);
    CHECK(f.gaps == 19);
    CHECK(f.idle_ns == 171000);
    CHECK(f.largest_gap_ns == 9000);
    CHECK(f.shorter_than_gap == 19);
    CHECK(f.launch_bound);
    CHECK(f.busy_pct == Approx(100.0 * 20000 / 191000));

    timeline_builder overlap; // two streams overlapping: busy is the union
    overlap.add(0, 0, 100);
    overlap.add(0, 50, 200);
    overlap.add(0, 300, 400);
    timeline_facts g;
    overlap.finish(g);
    CHECK(g.busy_ns == 300);
    CHECK(g.span_ns == 400);
    CHECK(g.gaps == 1);
    CHECK_FALSE(g.launch_bound);
}

TEST_CASE("quantile sketch: exact while small, within 1 % once folded") {
    detail::quantile_sketch s;
    for (int i = 1; i <= 101; ++i)
        s.add(static_cast<std::uint64_t>(i));
    CHECK(s.quantile(0.5) == Approx(51));
    CHECK(s.quantile(0.95) == Approx(96));
    detail::quantile_sketch big;
    std::mt19937_64 rng(3);
    std::vector<std::uint64_t> v;
    for (int i = 0; i < 100000; ++i)
        v.push_back(1000 + rng() % 1000000);
    for (auto x : v)
        big.add(x);
    std::sort(v.begin(), v.end());
    CHECK(big.quantile(0.5) == Approx(static_cast<double>(v[v.size() / 2])).epsilon(0.01));
    CHECK(big.quantile(0.95) == Approx(static_cast<double>(v[v.size() * 95 / 100])).epsilon(0.01));
    for (std::uint64_t x : {0ull, 63ull, 64ull, 1000ull, 123456789ull, ~0ull >> 1})
        CHECK(detail::quantile_sketch::midpoint(detail::quantile_sketch::bucket(x)) ==
              Approx(static_cast<double>(x)).epsilon(0.008).margin(0.5));
}

TEST_CASE("top JSON carries schema and version; text names traces and the hint") {
    const auto path = write_trace("j.ktrace");
    const auto r = aggregate({path}, group_by::kernel);
    const auto j = nlohmann::json::parse(top_json(r, 1));
    CHECK(j["schema"] == "ktune.top");
    CHECK(j["version"] == "1.1.0");
    CHECK(j["rows"].size() == 1);
    CHECK(j["rows_omitted"] == 1);
    CHECK(j["rows"][0]["count"] == 4);
    CHECK(j["traces"][0]["path"] == path);
    const auto text = format_top(r, 1);
    CHECK(text.find("gemm(float const*, float const*, float*)") != std::string::npos);
    CHECK(text.find("1 more") != std::string::npos);
    CHECK(text.find("GPU timeline: busy") != std::string::npos);
    CHECK(format_duration(1500) == "1.5 us");
    CHECK(format_duration(2.5e6) == "2.50 ms");
    std::filesystem::remove(path);
}

TEST_CASE("aggregate rejects bad input clearly") {
    CHECK_THROWS_AS(aggregate({}, group_by::kernel), ktune::error);
    CHECK_THROWS_AS(parse_group_by("stream"), ktune::error);
    CHECK(parse_group_by("launch") == group_by::launch);
    const auto bad = temp_path("bad.ktrace");
    std::ofstream(bad) << "not a trace";
    CHECK_THROWS_AS(aggregate({bad}, group_by::kernel), ktune::error);
    std::filesystem::remove(bad);
}
