// Sampling and the range session on a synthetic backend: which launches are profiled, the
// deny-list, batching, drop accounting and the join of ranges to launches.
#include "catch.hpp"

#include "ktune/core/error.hpp"
#include "ktune/metrics/range_session.hpp"
#include "ktune/metrics/sampling.hpp"

#include <string>

using namespace ktune::metrics;

namespace {

// Stores one range per start/stop; values are (range number, metric number) so the join is
// checkable. `capacity` mimics a full counter image: later ranges are dropped.
struct fake_backend final : range_backend {
    std::size_t configures = 0;
    std::size_t capacity = 1000, configured_ranges = 0, decodes = 0, in_image = 0, total = 0;
    std::size_t metrics = 0;
    bool running = false;
    std::string chip() override { return "GH100"; }
    void configure(std::span<const std::string> m, std::size_t max_ranges,
                   replay_mode replay) override {
        REQUIRE(replay == replay_mode::kernel);
        REQUIRE(in_image == 0); // pending ranges were decoded before a reconfiguration
        ++configures;
        metrics = m.size();
        configured_ranges = max_ranges;
    }
    void begin_pass(std::size_t) override { FAIL("begin_pass under kernel replay"); }
    void push_range(std::string_view) override { FAIL("push_range under kernel replay"); }
    void pop_range(bool) override { FAIL("pop_range under kernel replay"); }
    void start() override {
        REQUIRE_FALSE(running);
        running = true;
    }
    pass_state stop() override {
        REQUIRE(running);
        running = false;
        ++in_image;
        return {};
    }
    decoded decode() override {
        ++decodes;
        decoded d;
        const std::size_t kept = std::min(in_image, capacity);
        d.dropped = in_image - kept;
        for (std::size_t r = 0; r < kept; ++r) {
            d.range_names.push_back(std::to_string(r));
            std::vector<double> v;
            for (std::size_t m = 0; m < metrics; ++m)
                v.push_back(double(total + r) * 10 + double(m));
            d.values.push_back(std::move(v));
        }
        total += in_image;
        in_image = 0;
        return d;
    }
};

metric_set two_metrics() {
    return {"user", "GH100", {"gpu__time_duration.sum", "dram__bytes.sum"}, {}, 1};
}

} // namespace

TEST_CASE("sample rates parse as 1/N") {
    CHECK(parse_sample_rate("1/10") == 10);
    CHECK(parse_sample_rate("3") == 3);
    CHECK_THROWS_AS(parse_sample_rate("1/0"), ktune::error);
    CHECK_THROWS_AS(parse_sample_rate("2/10"), ktune::error);
    CHECK_THROWS_AS(parse_sample_rate("1/x"), ktune::error);
}

TEST_CASE("the policy samples 1/N launches of at most K kernels and denies unsafe ones") {
    sampling_policy p({"gemm|softmax", 3, 2, 1, {"my_spin_kernel"}, ""});
    using d = sample_decision;
    CHECK(p.decide("gemm_a", false) == d::profile);   // launch 0 of gemm_a
    CHECK(p.decide("gemm_a", false) == d::skip);      // max one per kernel
    CHECK(p.decide("elementwise", false) == d::skip); // not matched by the regex
    CHECK(p.decide("softmax", false) == d::profile);
    CHECK(p.decide("gemm_b", false) == d::skip); // K = 2 kernels already have metrics
    CHECK(p.decide("ncclDevKernel_AllReduce_Sum", false) == d::deny);
    CHECK(p.decide("gemm_coop", true) == d::deny); // cooperative launch
    CHECK(p.decide("MY_SPIN_KERNEL_gemm", false) == d::deny);
    CHECK(p.decide("ncclDevKernel_AllReduce_Sum", false) == d::deny);
    CHECK(p.denied() == std::vector<std::string>{"ncclDevKernel_AllReduce_Sum", "gemm_coop",
                                                 "MY_SPIN_KERNEL_gemm"});

    sampling_policy every3({"", 3, 10, 100, {}, ""});
    std::vector<int> profiled;
    for (int i = 0; i < 10; ++i)
        if (every3.decide("k", false) == d::profile) profiled.push_back(i);
    CHECK(profiled == std::vector<int>{0, 3, 6, 9});
    CHECK(denied_by_default("persistent_gemm_kernel"));
    CHECK_FALSE(denied_by_default("gemm_kernel"));
    CHECK_THROWS_AS(sampling_policy({"(unclosed", 1, 1, 1, {}, ""}), ktune::error);
}

TEST_CASE("a session profiles sampled launches only and joins ranges to them") {
    auto backend = std::make_unique<fake_backend>();
    auto* fake = backend.get();
    range_session s(two_metrics(), {"", 2, 10, 100, {}, ""}, std::move(backend), 3);
    CHECK(fake->configured_ranges == 3);
    std::vector<std::uint64_t> sampled;
    for (std::uint64_t i = 0; i < 12; ++i) {
        const std::string name = i % 4 == 3 ? "ncclKernel" : "k";
        if (s.launch_begin(name, i, 100 + i, false)) {
            sampled.push_back(i);
            s.launch_end();
        }
    }
    // Launches of "k": 0,1,2,4,5,6,8,9,10 -> every second one of them is sampled.
    CHECK(sampled == std::vector<std::uint64_t>{0, 2, 5, 8, 10});
    const auto doc = s.finish();
    CHECK(fake->decodes == 2); // a full batch of 3, then the rest at finish
    REQUIRE(doc.kernels.size() == 5);
    CHECK(doc.chip == "GH100");
    CHECK(doc.dropped_ranges == 0);
    CHECK(doc.denied == std::vector<std::string>{"ncclKernel"});
    for (std::size_t r = 0; r < 5; ++r) {
        INFO(r);
        CHECK(doc.kernels[r].launch_index == sampled[r]);
        CHECK(doc.kernels[r].correlation_id == 100 + sampled[r]);
        CHECK(doc.kernels[r].values.at("gpu__time_duration.sum") == double(r) * 10);
        CHECK(doc.kernels[r].values.at("dram__bytes.sum") == double(r) * 10 + 1);
    }
}

TEST_CASE("dropped ranges are reported, never invented") {
    auto backend = std::make_unique<fake_backend>();
    backend->capacity = 2;
    range_session s(two_metrics(), {}, std::move(backend), 8);
    for (std::uint64_t i = 0; i < 5; ++i) {
        REQUIRE(s.launch_begin("kernel" + std::to_string(i), i, i, false));
        s.launch_end();
    }
    const auto doc = s.finish();
    CHECK(doc.kernels.size() == 2);
    CHECK(doc.dropped_ranges == 3);
    CHECK(doc.kernels[1].launch_index == 1);
}

TEST_CASE("a set resolved for another chip is refused") {
    auto set = two_metrics();
    set.chip = "GA100";
    CHECK_THROWS_AS(range_session(set, {}, std::make_unique<fake_backend>()), ktune::error);
}

TEST_CASE("each kernel gets the tensor metric of its precision") {
    auto backend = std::make_unique<fake_backend>();
    auto* fake = backend.get();
    std::vector<tensor_precision> asked;
    const set_resolver resolve = [&](tensor_precision p) {
        asked.push_back(p);
        return metric_set{"roofline",
                          "GH100",
                          {"gpu__time_duration.sum",
                           "sm__ops_path_tensor_src_" + std::string(to_string(p)) + ".sum"},
                          {},
                          p == tensor_precision::fp16 ? 3u : 2u};
    };
    range_session s(resolve, {}, std::move(backend), 8);
    for (const char* k : {"gemm_bf16_a", "gemm_bf16_b", "gemm_f16_c", "gemm_bf16_d"}) {
        REQUIRE(s.launch_begin(k, 0, 0, false));
        s.launch_end();
    }
    const auto doc = s.finish();
    REQUIRE(doc.kernels.size() == 4);
    CHECK(doc.kernels[0].values.contains("sm__ops_path_tensor_src_bf16.sum"));
    CHECK(doc.kernels[1].values.contains("sm__ops_path_tensor_src_bf16.sum"));
    CHECK(doc.kernels[2].values.contains("sm__ops_path_tensor_src_fp16.sum"));
    CHECK_FALSE(doc.kernels[2].values.contains("sm__ops_path_tensor_src_bf16.sum"));
    CHECK(doc.kernels[3].values.contains("sm__ops_path_tensor_src_bf16.sum"));
    CHECK(fake->configures == 3); // bf16, fp16, bf16 again
    CHECK(asked == std::vector<tensor_precision>{tensor_precision::bf16, tensor_precision::fp16});
    CHECK(doc.passes == 3); // the costliest set used
}

TEST_CASE("--deny takes a regular expression") {
    sampling_options o;
    o.deny_regex = "^spin_|_persistent_loop$";
    sampling_policy p(o);
    CHECK(p.decide("spin_wait", false) == sample_decision::deny);
    CHECK(p.decide("gemm_persistent_loop", false) == sample_decision::deny);
    CHECK(p.decide("my_spin_wait", false) == sample_decision::profile);
    o.deny_regex = "(";
    CHECK_THROWS_AS(sampling_policy(o), ktune::error);
}
