// Joining a .ktrace's timeline to sampled metrics: launch counts, GPU time, idle gaps, GPU name.
#include "catch.hpp"

#include "ktune/analysis/aggregate.hpp"
#include "ktune/analysis/roofline.hpp"
#include "ktune/core/error.hpp"
#include "ktune/trace/trace_file.hpp"

#include <filesystem>
#include <limits>
#include <string>

using namespace ktune;

TEST_CASE("a trace's timeline fills launches, time and gaps; the verdict becomes launch-bound") {
    const auto path =
        (std::filesystem::temp_directory_path() / "ktune_roofline_join.ktrace").string();
    trace::trace_environment env;
    env.gpus.push_back({0, "NVIDIA H200", "GPU-x", 9, 0, 0, 0, 0});
    {
        trace::trace_writer w(path, env);
        const auto tiny = w.intern("tiny_add");
        const auto big = w.intern("big_gemm");
        std::vector<trace::kernel_record> recs;
        std::uint64_t t = 1000;
        for (int i = 0; i < 100; ++i) { // 2 us kernels, 3 us idle before each
            trace::kernel_record k;
            k.start_ns = t;
            k.end_ns = t + 2000;
            k.name_id = tiny;
            recs.push_back(k);
            t += 5000;
        }
        trace::kernel_record g;
        g.start_ns = t;
        g.end_ns = t + 500000;
        g.name_id = big;
        recs.push_back(g);
        w.write(recs);
        w.finish(env, {});
    }
    metrics::kernel_metrics_doc doc;
    doc.kernels.push_back({"tiny_add",
                           3,
                           0,
                           1,
                           0,
                           -1,
                           {{"gpu__time_duration.sum", 2000}, {"dram__bytes.sum", 8192}}});
    doc.kernels.push_back({"not_in_trace",
                           9,
                           0,
                           1,
                           0,
                           -1,
                           {{"gpu__time_duration.sum", 1e6}, {"dram__bytes.sum", 4e9}}});
    analysis::join_trace_timeline(doc, {path});
    std::filesystem::remove(path);

    CHECK(doc.gpu == "NVIDIA H200");
    CHECK(doc.kernels[0].launches == 100);
    CHECK(doc.kernels[0].total_time_ns == Approx(200000));
    // 100 gaps of 3 us among the 101 kernels.
    CHECK(doc.kernels[0].mean_gap_ns == Approx(3000));
    CHECK(doc.kernels[1].launches == 1); // untouched
    CHECK(doc.kernels[1].mean_gap_ns < 0);

    const auto a = analysis::analyse_roofline(doc);
    REQUIRE(a.points.size() == 2);
    for (const auto& p : a.points)
        if (p.name == "tiny_add") CHECK(p.cls == analysis::bound_class::launch);
}

// Seen on an H200 (main job, --replay launches): CUPTI evaluated one kernel's DRAM read bytes to
// NaN, the JSON writer stored null, and `ktune roofline` refused the whole trace.
TEST_CASE("a metric CUPTI evaluated to NaN leaves that kernel out, not the whole roofline") {
    metrics::kernel_metrics_doc doc;
    doc.gpu = "NVIDIA H200";
    doc.kernels.push_back(
        {"good", 0, 0, 1, 0, -1, {{"gpu__time_duration.sum", 1e5}, {"dram__bytes.sum", 4e8}}});
    doc.kernels.push_back({"nan_dram",
                           1,
                           0,
                           1,
                           0,
                           -1,
                           {{"gpu__time_duration.sum", 1e5},
                            {"dram__bytes_read.sum", std::numeric_limits<double>::quiet_NaN()},
                            {"dram__bytes_write.sum", 1e6}}});
    const std::string text = metrics::to_json(doc);
    CHECK(text.find("null") == std::string::npos); // NaN is not written
    const auto back = metrics::parse_kernel_metrics(text, "mem");
    REQUIRE(back.kernels.size() == 2);
    CHECK_FALSE(back.kernels[1].values.contains("dram__bytes_read.sum"));
    // An older writer's null reads as "no value".
    std::string old = text;
    const auto at = old.find("\"dram__bytes_write.sum\"");
    REQUIRE(at != std::string::npos);
    old.insert(at, "\"dram__bytes_read.sum\": null, ");
    CHECK(metrics::parse_kernel_metrics(old, "old").kernels[1].values.size() == 2);

    const auto a = analysis::analyse_roofline(back);
    REQUIRE(a.points.size() == 1);
    CHECK(a.points[0].name == "good");
    REQUIRE(a.unevaluated.size() == 1);
    CHECK(a.unevaluated[0].find("nan_dram") != std::string::npos);
    CHECK(a.unevaluated[0].find("dram__bytes_read.sum") != std::string::npos);

    // No usable kernel at all: the error says which metric set is needed.
    metrics::kernel_metrics_doc none;
    none.gpu = "NVIDIA H200";
    none.kernels.push_back({"occupancy_only", 0, 0, 1, 0, -1, {{"sm__warps_active", 3}}});
    CHECK_THROWS_AS(analysis::analyse_roofline(none), ktune::error);
}

TEST_CASE("samples told apart by work share their kernel's launches, not each its whole time") {
    // The H100 Llama training step (`--replay launches`, work keys): nvjet NNT ran 10 problems
    // on one grid, 10 samples. The timeline knows the kernel's launches by name and shape only;
    // each launch goes to the sample of nearest launch time, so the samples' times add up to the
    // kernel's total instead of each claiming all of it.
    const std::string path =
        KTUNE_TEST_DATA_DIR "/metrics/h100_llama_train_launches.metrics.ktrace";
    const auto t = ktune::analysis::metrics_from_trace(path);
    const std::string nnt = "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT";
    double sum = 0;
    std::uint64_t launches = 0;
    int samples = 0;
    for (const auto& k : t.doc.kernels)
        if (k.name.starts_with(nnt + " [w:")) {
            ++samples;
            sum += k.total_time_ns;
            launches += k.launches;
            CHECK_FALSE(k.work.empty());
        }
    CHECK(samples == 10);
    const auto r = ktune::analysis::aggregate({path}, ktune::analysis::group_by::kernel);
    double total = 0;
    std::uint64_t count = 0;
    for (const auto& row : r.rows)
        if (row.name == nnt) total = double(row.stats.total_ns), count = row.stats.count;
    REQUIRE(total > 0);
    CHECK(sum == Approx(total).epsilon(0.02)); // not 10 x the total
    CHECK(launches <= count);
    CHECK(launches >= count - 10);   // integer shares of evenly split launches
    CHECK(t.mixed_work.size() == 3); // the shape-keyed reductions and add, as the CLI test says
}
