// Joining a .ktrace's timeline to sampled metrics: launch counts, GPU time, idle gaps, GPU name.
#include "catch.hpp"

#include "ktune/analysis/roofline.hpp"
#include "ktune/trace/trace_file.hpp"

#include <filesystem>

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
