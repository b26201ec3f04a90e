// The metrics chunk of a .ktrace: appended after the footer, invisible to the record reader
// (older ktune versions still read the trace), found again by read_metrics_chunk and joined to
// the launches of the trace by correlation id.
#include "catch.hpp"

#include "ktune/analysis/roofline.hpp"
#include "ktune/core/error.hpp"
#include "ktune/metrics/kernel_metrics.hpp"
#include "ktune/trace/trace_file.hpp"

#include <filesystem>
#include <fstream>

using namespace ktune;

namespace {

struct count_kernels final : trace::trace_visitor {
    std::size_t n = 0;
    void on_kernels(std::span<const trace::kernel_record> ks) override { n += ks.size(); }
};

// A complete trace with 3 launches of a mangled kernel (correlation ids 10, 11, 12); `wait`: an
// 80 us CUPTI WaitNs kernel under launch 11's correlation id, as a range's pop launches it.
std::string write_trace(const char* file, bool wait = false) {
    const auto path = (std::filesystem::temp_directory_path() / file).string();
    trace::trace_environment env;
    env.gpus.push_back({0, "NVIDIA H200", "GPU-x", 9, 0, 0, 0, 0});
    trace::trace_writer w(path, env);
    const auto id = w.intern("_Z4axpyPfS_i");
    std::vector<trace::kernel_record> recs(3);
    for (std::uint32_t i = 0; i < 3; ++i) {
        recs[i].start_ns = 1000 + i * 10000;
        recs[i].end_ns = recs[i].start_ns + 4000;
        recs[i].name_id = id;
        recs[i].correlation = 10 + i;
    }
    if (wait) {
        trace::kernel_record r;
        r.start_ns = 20000;
        r.end_ns = 100000;
        r.name_id = w.intern("WaitNs");
        r.correlation = 11;
        recs.push_back(r);
    }
    w.write(recs);
    w.finish(env, {});
    return path;
}

metrics::kernel_metrics_doc sampled(std::uint64_t correlation) {
    metrics::kernel_metrics_doc d;
    d.chip = "GH100";
    d.metric_set = "roofline";
    d.passes = 2;
    d.denied = {"ncclDevKernel_AllReduce"};
    d.kernels.push_back({"_Z4axpyPfS_i",
                         1,
                         correlation,
                         1,
                         0,
                         -1,
                         {{"gpu__time_duration.sum", 4000}, {"dram__bytes.sum", 3.0e7}}});
    return d;
}

} // namespace

TEST_CASE("a metrics chunk after the footer round-trips and leaves the trace readable") {
    const auto path = write_trace("ktune_metrics_chunk.ktrace");
    CHECK(trace::is_trace_file(path));
    CHECK(trace::read_metrics_chunk(path).empty()); // recorded without --metrics
    const auto size_before = std::filesystem::file_size(path);
    const std::string json = metrics::to_json(sampled(11));
    trace::append_metrics_chunk(path, json);
    CHECK(std::filesystem::file_size(path) > size_before);
    CHECK(trace::read_metrics_chunk(path) == json);
    CHECK(metrics::parse_kernel_metrics(trace::read_metrics_chunk(path), path) == sampled(11));

    // The record reader (and so every older ktune) stops at the footer: complete, 3 kernels.
    trace::trace_reader r(path);
    count_kernels v;
    const auto st = r.read(v);
    CHECK(st.complete);
    CHECK(st.damage.empty());
    CHECK(v.n == 3);

    // A re-run appends a newer document: the last one wins.
    const std::string newer = metrics::to_json(sampled(12));
    trace::append_metrics_chunk(path, newer);
    CHECK(trace::read_metrics_chunk(path) == newer);
    std::filesystem::remove(path);
}

TEST_CASE("metrics from a trace are joined to their launch and its timeline") {
    const auto path = write_trace("ktune_metrics_join.ktrace");
    trace::append_metrics_chunk(path, metrics::to_json(sampled(11)));
    const auto t = analysis::metrics_from_trace(path);
    REQUIRE(t.doc.kernels.size() == 1);
    CHECK(t.joined_by_correlation == 1);
    CHECK(t.doc.kernels[0].name == "axpy(float*, float*, int)"); // demangled for the table
    CHECK(t.doc.kernels[0].launches == 3);                       // from the timeline
    CHECK(t.doc.kernels[0].total_time_ns == Approx(12000));
    CHECK(t.doc.gpu == "NVIDIA H200");
    std::filesystem::remove(path);

    // A correlation id the trace does not have is not counted as joined.
    const auto other = write_trace("ktune_metrics_nojoin.ktrace");
    trace::append_metrics_chunk(other, metrics::to_json(sampled(99)));
    CHECK(analysis::metrics_from_trace(other).joined_by_correlation == 0);
    std::filesystem::remove(other);
}

TEST_CASE("user-range samples take the kernel's time from its launch record") {
    // A user range spans the launch plus the profiler's own commands: 10 us for a 4 us launch.
    const auto path = write_trace("ktune_metrics_user_range.ktrace", true);
    auto doc = sampled(11);
    doc.replay = "launches";
    doc.range = "user";
    doc.kernels[0].values["gpu__time_duration.sum"] = 10000;
    doc.kernels[0].values["lts__t_sectors.avg.pct_of_peak_sustained_elapsed"] = 20;
    doc.kernels[0].values["sm__inst_executed.avg.pct_of_peak_sustained_elapsed"] = 45;
    doc.kernels[0].values["lts__t_bytes.sum"] = 1e6;
    trace::append_metrics_chunk(path, metrics::to_json(doc));
    const auto t = analysis::metrics_from_trace(path);
    REQUIRE(t.doc.kernels.size() == 1);
    const auto& v = t.doc.kernels[0].values;
    CHECK(v.at("gpu__time_duration.sum") == 4000); // record 11: 4 us
    CHECK(v.at("ktune__range_duration_ns") == 10000);
    CHECK(v.at("lts__t_sectors.avg.pct_of_peak_sustained_elapsed") == Approx(50)); // x 2.5
    CHECK(v.at("sm__inst_executed.avg.pct_of_peak_sustained_elapsed") == 100);     // capped
    CHECK(v.at("lts__t_bytes.sum") == 1e6);                                        // a count
    std::filesystem::remove(path);

    // A range 10x the kernel held something else: its throughputs are left out.
    const auto wide = write_trace("ktune_metrics_user_range_wide.ktrace");
    auto diluted = doc;
    diluted.kernels[0].values["gpu__time_duration.sum"] = 40000;
    trace::append_metrics_chunk(wide, metrics::to_json(diluted));
    const auto w = analysis::metrics_from_trace(wide).doc.kernels[0].values;
    CHECK(w.at("gpu__time_duration.sum") == 4000);
    CHECK_FALSE(w.contains("lts__t_sectors.avg.pct_of_peak_sustained_elapsed"));
    CHECK(w.at("lts__t_bytes.sum") == 1e6);
    std::filesystem::remove(wide);

    // Without a record of the launch, the kernel's mean over the trace; auto ranges unchanged.
    const auto other = write_trace("ktune_metrics_user_range_mean.ktrace");
    auto unjoined = doc;
    unjoined.kernels[0].correlation_id = 99;
    trace::append_metrics_chunk(other, metrics::to_json(unjoined));
    CHECK(analysis::metrics_from_trace(other).doc.kernels[0].values.at("gpu__time_duration.sum") ==
          Approx(4000));
    auto autorange = doc;
    autorange.range = "auto";
    trace::append_metrics_chunk(other, metrics::to_json(autorange));
    CHECK(analysis::metrics_from_trace(other).doc.kernels[0].values.at("gpu__time_duration.sum") ==
          10000);
    std::filesystem::remove(other);
}

TEST_CASE("a trace without metrics, or a file that is not a trace, is refused clearly") {
    const auto path = write_trace("ktune_metrics_none.ktrace");
    try {
        (void)analysis::metrics_from_trace(path);
        FAIL("a trace without metrics was accepted");
    } catch (const error& e) {
        CHECK(e.kind() == error_kind::input);
        CHECK(std::string(e.what()).find("--metrics roofline") != std::string::npos);
    }
    std::filesystem::remove(path);
    const auto json = (std::filesystem::temp_directory_path() / "ktune_not_a_trace.json").string();
    std::ofstream(json) << "{}";
    CHECK_FALSE(trace::is_trace_file(json));
    CHECK_THROWS_AS(trace::append_metrics_chunk(json, "{}"), error);
    CHECK_THROWS_AS(trace::read_metrics_chunk(json), error);
    std::filesystem::remove(json);
}
