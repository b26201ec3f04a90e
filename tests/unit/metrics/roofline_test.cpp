// The classifier on the synthetic H200 fixture (tests/data/metrics/README.md says how its
// values were built); every expectation below is computed by hand from those values.
#include "catch.hpp"

#include "ktune/analysis/roofline.hpp"
#include "ktune/core/error.hpp"
#include "ktune/metrics/kernel_metrics.hpp"
#include "ktune/metrics/metric_set.hpp"

#include <cmath>
#include <map>

using namespace ktune::analysis;

namespace {

std::vector<kernel_work> fixture_works() {
    const auto doc = ktune::metrics::read_kernel_metrics(
        KTUNE_TEST_DATA_DIR "/metrics/h200_synthetic.kernel_metrics.json");
    std::vector<kernel_work> works;
    for (const auto& k : doc.kernels)
        works.push_back(work_from_sample(k));
    return works;
}

roofline_roofs h200() {
    return roofs_from_spec(*ktune::find_gpu_peaks("NVIDIA H200"));
}

std::map<std::string, roofline_point> by_short_name(const std::vector<roofline_point>& points) {
    std::map<std::string, roofline_point> m;
    for (const auto& p : points)
        m[p.name.substr(0, p.name.find_first_of("<(,"))] = p;
    return m;
}

} // namespace

TEST_CASE("spec roofs come from the peak table") {
    const auto r = h200();
    CHECK(r.dram_bytes_per_s == Approx(4.8e12));
    CHECK(r.roof(compute_kind::tensor_16) == Approx(989.5e12));
    CHECK(r.roof(compute_kind::fp32) == Approx(67e12));
    CHECK(r.roof(compute_kind::fp16) == r.roof(compute_kind::fp32));
    const auto m = with_measured(r, {4300, 0, 780});
    CHECK(m.dram_bytes_per_s == Approx(4.3e12));
    CHECK(m.roof(compute_kind::fp32) == Approx(67e12)); // not measured: the spec stays
    CHECK(m.roof(compute_kind::tensor_16) == Approx(780e12));
    CHECK(m.source.starts_with("measured"));
    CHECK(with_measured(r, {}) == r);
}

TEST_CASE("metrics become work: FLOPs per precision, DRAM bytes") {
    const auto w = fixture_works();
    REQUIRE(w.size() == 6);
    CHECK(w[0].flops[std::size_t(compute_kind::tensor_16)] == Approx(2.0 * 4096 * 4096 * 4096));
    CHECK(w[0].dram_bytes == Approx(75497472.0 + 33554432.0));
    CHECK(w[3].flops[std::size_t(compute_kind::fp32)] == Approx(2 * 33e9)); // fma = 2 FLOPs
    CHECK(w[4].flops[std::size_t(compute_kind::fp32)] ==
          Approx(134217728.0 + 67108864.0 + 2 * 67108864.0));

    ktune::metrics::kernel_sample s{"k", 0, 0, 1, 0, -1, {{"dram__bytes.sum", 10}}};
    try {
        (void)work_from_sample(s);
        FAIL("no duration accepted");
    } catch (const ktune::error& e) {
        CHECK(std::string(e.what()).find("gpu__time_duration.sum") != std::string::npos);
    }
    s.values["gpu__time_duration.sum"] = 100;
    CHECK(work_from_sample(s).dram_bytes == 10); // dram__bytes.sum is used when present
}

TEST_CASE("each kernel of the fixture gets its class and lever") {
    const auto points = classify(fixture_works(), h200());
    REQUIRE(points.size() == 6);
    auto p = by_short_name(points);

    const auto& gemm = p.at("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT");
    CHECK(gemm.cls == bound_class::compute);
    CHECK(gemm.kind == compute_kind::tensor_16);
    CHECK(gemm.flops_per_s == Approx(137438953472.0 / 184e-6));
    CHECK(gemm.compute_pct == Approx(100 * 137438953472.0 / 184e-6 / 989.5e12));
    CHECK(gemm.intensity == Approx(137438953472.0 / 109051904.0));
    CHECK(gemm.ridge == Approx(989.5 / 4.8));
    CHECK(gemm.pct_of_attainable == Approx(gemm.compute_pct));
    CHECK(gemm.lever.find("tile shape") != std::string::npos);

    const auto& add = p.at("void at::native::vectorized_elementwise_kernel");
    CHECK(add.cls == bound_class::launch);
    CHECK(add.lever.find("CUDA graphs") != std::string::npos);
    CHECK(add.time_share == Approx(40e6 / (7.36e6 + 40e6 + 2e6 + 2.2e6 + 2.03e6 + 0.2e6)));

    const auto& copy = p.at("copy_kernel_1GiB");
    CHECK(copy.cls == bound_class::memory);
    CHECK(copy.memory_pct == Approx(100 * 2147483648.0 / 500e-6 / 4.8e12));
    CHECK(copy.lever.find("at its memory roof") != std::string::npos);

    const auto& fma = p.at("fma_chain_fp32");
    CHECK(fma.cls == bound_class::compute);
    CHECK(fma.kind == compute_kind::fp32);
    CHECK(fma.lever.find("tensor cores") != std::string::npos);

    const auto& softmax = p.at("softmax_warp_forward");
    CHECK(softmax.cls == bound_class::memory);
    CHECK(softmax.intensity < softmax.ridge);
    CHECK(softmax.lever.find("coalesc") != std::string::npos);

    const auto& reduce = p.at("reduce_kernel_small");
    CHECK(reduce.cls == bound_class::latency);
    CHECK(reduce.memory_pct < 30);
    CHECK(reduce.lever.find("latency hiding") != std::string::npos);

    double shares = 0;
    for (const auto& q : points)
        shares += q.time_share;
    CHECK(shares == Approx(1.0));
}

TEST_CASE("thresholds move the latency and launch verdicts") {
    auto works = fixture_works();
    roofline_thresholds t;
    t.latency_pct = 5; // the small reduction (10 % of DRAM) is now memory-bound
    t.launch_max_kernel_ns = 1000;
    auto p = by_short_name(classify(works, h200(), t));
    CHECK(p.at("reduce_kernel_small").cls == bound_class::memory);
    CHECK(p.at("void at::native::vectorized_elementwise_kernel").cls != bound_class::launch);
}

TEST_CASE("bad classifier input is refused") {
    kernel_work w;
    w.name = "zero";
    CHECK_THROWS_AS(classify(std::vector{w}, h200()), ktune::error);
    CHECK_THROWS_AS(classify(std::vector<kernel_work>{}, roofline_roofs{}), ktune::error);
    CHECK(classify(std::vector<kernel_work>{}, h200()).empty());
}

TEST_CASE("tensor FLOPs: aggregate and per-instruction counters are never added twice") {
    using ktune::metrics::kernel_sample;
    kernel_sample s{
        "gemm", 0, 0, 1, 0, -1, {{"gpu__time_duration.sum", 1e6}, {"dram__bytes.sum", 1e8}}};
    const double n3 = 2.0 * 4096 * 4096 * 4096;
    // A wgmma bf16 GEMM seen by the `measure` set: aggregate and hgmma count the same work.
    s.values["sm__ops_path_tensor_src_bf16_dst_fp32.sum"] = n3;
    s.values["sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum"] = n3;
    s.values["sm__ops_path_tensor_op_hgmma_src_fp16.sum"] = 0;
    s.values["sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32.sum"] = 0;
    auto w = work_from_sample(s);
    CHECK(w.flops[std::size_t(compute_kind::tensor_16)] == Approx(n3));
    CHECK(w.flops[std::size_t(compute_kind::tensor_tf32)] == 0);
    // An fp16 wgmma kernel where only per-instruction counters fit: they are the work.
    s.values.erase("sm__ops_path_tensor_src_bf16_dst_fp32.sum");
    s.values["sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum"] = 0;
    s.values["sm__ops_path_tensor_op_hgmma_src_fp16.sum"] = n3;
    w = work_from_sample(s);
    CHECK(w.flops[std::size_t(compute_kind::tensor_16)] == Approx(n3));
    // tf32 lands on its own roof.
    s.values["sm__ops_path_tensor_op_hgmma_src_fp16.sum"] = 0;
    s.values["sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32.sum"] = n3 / 2;
    w = work_from_sample(s);
    CHECK(w.flops[std::size_t(compute_kind::tensor_tf32)] == Approx(n3 / 2));
    CHECK(w.flops[std::size_t(compute_kind::tensor_16)] == 0);
}

TEST_CASE("memory-bound names the level whose throughput binds: DRAM, L2 or L1/shared") {
    using ktune::metrics::kernel_sample;
    namespace n = ktune::metrics::names;
    // An FP32 SIMT GEMM 2048^3 in 1 ms: DRAM 67.6 GB/s (1.4 % of 4.8 TB/s), FP32 17.2 TFLOP/s
    // (25.6 % of 67): under 30 % on the DRAM roofline, so latency there.
    kernel_sample s{
        "sgemm",
        0,
        0,
        1,
        0,
        -1,
        {{"gpu__time_duration.sum", 1e6},
         {"dram__bytes_read.sum", 6.0e7},
         {"dram__bytes_write.sum", 7.6e6},
         {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 2048.0 * 2048 * 2048}}};
    auto p = classify(std::vector{work_from_sample(s)}, h200()).front();
    CHECK(p.cls == bound_class::latency);
    CHECK(p.unit == bound_unit::pipe); // the busiest unit all the same: FP32 25.6 % > DRAM 1.4 %
    CHECK(p.l1_pct < 0);               // not measured: the plain roofline verdict
    // Its shared-memory traffic, seen by the L1 data banks, binds it.
    s.values[std::string(n::l1_bank_reads_pct)] = 81;
    s.values[std::string(n::l1_bank_writes_pct)] = 12;
    s.values[std::string(n::l1_lsu_pct)] = 64;
    s.values[std::string(n::l2_pct)] = 9;
    s.values[std::string(n::issue_pct)] = 57;
    const auto w = work_from_sample(s);
    CHECK(w.l1_pct == Approx(81)); // the busiest of bank reads, bank writes, LSU data pipe
    CHECK(w.l2_pct == Approx(9));
    CHECK(w.issue_pct == Approx(57));
    p = classify(std::vector{w}, h200()).front();
    CHECK(p.cls == bound_class::memory);
    CHECK(p.unit == bound_unit::l1);
    CHECK(p.lever.find("register tiling") != std::string::npos);
    CHECK(p.lever.find("tensor cores") != std::string::npos); // FP32 math, a tensor roof exists
    CHECK(p.why.find("L1/shared 81 %") != std::string::npos);
    CHECK(p.memory_pct == Approx(100 * 6.76e7 / 1e-3 / 4.8e12)); // the DRAM point is unchanged
    // L2 busiest: memory-bound on L2, DRAM not the limit.
    s.values[std::string(n::l1_bank_reads_pct)] = 20;
    s.values[std::string(n::l1_lsu_pct)] = 20;
    s.values[std::string(n::l2_pct)] = 75;
    p = classify(std::vector{work_from_sample(s)}, h200()).front();
    CHECK(p.cls == bound_class::memory);
    CHECK(p.unit == bound_unit::l2);
    CHECK(p.lever.find("L2 traffic") != std::string::npos);
    // Instruction issue above every memory level: compute-bound on issue.
    s.values[std::string(n::l2_pct)] = 30;
    s.values[std::string(n::issue_pct)] = 88;
    p = classify(std::vector{work_from_sample(s)}, h200()).front();
    CHECK(p.cls == bound_class::compute);
    CHECK(p.unit == bound_unit::issue);
    CHECK(p.lever.find("instruction issue") != std::string::npos);
    // Everything under the threshold stays latency-bound.
    s.values[std::string(n::issue_pct)] = 25;
    s.values[std::string(n::l2_pct)] = 20;
    CHECK(classify(std::vector{work_from_sample(s)}, h200()).front().cls == bound_class::latency);
    CHECK(to_string(bound_unit::l1) == "L1/shared");
    // A wgmma GEMM whose shared-memory banks bind (cuBLAS bf16 8192^3 on the H200: data banks
    // 95 %, tensor pipe 91 %): the lever is about feeding the tensor cores, not tiling FP32.
    kernel_sample g{"gemm",
                    0,
                    0,
                    1,
                    0,
                    -1,
                    {{"gpu__time_duration.sum", 1.2e6},
                     {"dram__bytes.sum", 1.4e9},
                     {"sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum", 1.0827e12},
                     {std::string(n::l1_bank_reads_pct), 95}}};
    p = classify(std::vector{work_from_sample(g)}, h200()).front();
    CHECK(p.cls == bound_class::memory);
    CHECK(p.unit == bound_unit::l1);
    CHECK(p.kind == compute_kind::tensor_16);
    CHECK(p.lever.find("feeding the tensor cores") != std::string::npos);
}
