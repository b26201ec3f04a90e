// Metric sets resolved through CUPTI's real host API on CPU-only machines: names valid per chip,
// pass counts, refusal of costly sets, and the poisoned-host-object trap.
#include "catch.hpp"

#include "ktune/core/error.hpp"
#include "ktune/metrics/metric_host.hpp"
#include "ktune/metrics/metric_set.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

using namespace ktune::metrics;

namespace {
// CUPTI dlopens libnvperf_host with RTLD_DEEPBIND, which AddressSanitizer aborts on; the
// sanitizer build skips the host-API checks (the plain build runs them) and checks the refusal.
bool host_api_skipped() {
#if defined(__SANITIZE_ADDRESS__)
    std::fprintf(stderr, "SKIPPED under AddressSanitizer: CUPTI's profiler host dlopens "
                         "libnvperf_host with RTLD_DEEPBIND\n");
    CHECK_THROWS_AS(supported_chips(), ktune::error);
    return true;
#else
    return false;
#endif
}

bool contains(const std::vector<std::string>& v, std::string_view s) {
    return std::ranges::find(v, s) != v.end();
}
} // namespace

TEST_CASE("CUPTI's host API knows the chips ktune tests") {
    if (host_api_skipped()) return;
    const auto chips = supported_chips();
    for (auto c : {"GH100", "GA100", "AD102", "GB100"}) {
        INFO(c);
        CHECK(contains(chips, c));
    }
    CHECK(default_chip_for_arch("sm_90") == std::optional<std::string>("GH100"));
    CHECK_FALSE(default_chip_for_arch("sm_1").has_value());
}

TEST_CASE("metric names are validated one at a time") {
    if (host_api_skipped()) return;
    CHECK(is_valid_metric("GH100", "dram__bytes.sum"));
    CHECK(is_valid_metric("GH100", "sm__ops_path_tensor_src_bf16_dst_fp32.sum"));
    // launch__* values come from activity records, not the range profiler.
    CHECK_FALSE(is_valid_metric("GH100", "launch__grid_size"));
    CHECK_FALSE(is_valid_metric("GH100", "dram__bytes_nonsense.sum"));
    // A failed check must not poison the next one (each uses a fresh host object).
    CHECK(is_valid_metric("GH100", "gpu__time_duration.sum"));
    // Hopper's fp16 tensor metric has no accumulator suffix; Ampere's has.
    CHECK(is_valid_metric("GH100", "sm__ops_path_tensor_src_fp16.sum"));
    CHECK_FALSE(is_valid_metric("GA100", "sm__ops_path_tensor_src_fp16.sum"));
    CHECK(is_valid_metric("GA100", "sm__ops_path_tensor_src_fp16_dst_fp32.sum"));
    CHECK_THROWS_AS(is_valid_metric("GZ999", "dram__bytes.sum"), ktune::error);
}

TEST_CASE("the roofline set fits the pass budget on every tested chip") {
    if (host_api_skipped()) return;
    for (auto chip : {"GH100", "GA100", "AD102", "GB100"}) {
        for (auto p : {tensor_precision::bf16, tensor_precision::fp16, tensor_precision::tf32}) {
            INFO(chip << " " << to_string(p));
            const auto set = resolve_metric_set(metric_set_request("roofline", p), chip, 3);
            CHECK(set.chip == chip);
            CHECK(set.passes >= 1);
            CHECK(set.passes <= 3);
            CHECK(set.dropped.empty());
            CHECK(contains(set.metrics, std::string(names::duration)));
            CHECK(contains(set.metrics, std::string(names::dram_read)));
            CHECK(contains(set.metrics, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"));
            // Exactly one tensor metric: each extra precision costs a replay pass.
            const auto tensors = std::ranges::count_if(set.metrics, [](const std::string& m) {
                return m.starts_with(names::tensor_prefix);
            });
            CHECK(tensors == 1);
        }
    }
    // fp8 resolves to each generation's own name; Ampere has no fp8 tensor metric at all.
    CHECK(contains(
        resolve_metric_set(metric_set_request("roofline", tensor_precision::fp8), "GH100", 3)
            .metrics,
        "sm__ops_path_tensor_src_fp8.sum"));
    CHECK(contains(
        resolve_metric_set(metric_set_request("roofline", tensor_precision::fp8), "GB100", 3)
            .metrics,
        "sm__ops_path_tensor_src_fp4_fp6_fp8_dst_fp32.sum"));
    CHECK_THROWS_AS(
        resolve_metric_set(metric_set_request("roofline", tensor_precision::fp8), "GA100", 3),
        ktune::error);
}

TEST_CASE("GH100 roofline needs the passes CUPTI reports for its metrics") {
    if (host_api_skipped()) return;
    const auto set =
        resolve_metric_set(metric_set_request("roofline", tensor_precision::bf16), "GH100", 3);
    CHECK(set.passes == count_passes("GH100", set.metrics));
    // Two tensor precisions cost more than one: the reason a set asks for one only.
    auto two = set.metrics;
    two.emplace_back("sm__ops_path_tensor_src_fp16.sum");
    CHECK(count_passes("GH100", two) > set.passes);
}

TEST_CASE("occupancy and stalls resolve; optional stall reasons are dropped per chip") {
    if (host_api_skipped()) return;
    for (auto chip : {"GH100", "GA100", "AD102", "GB100"}) {
        INFO(chip);
        const auto occ = resolve_metric_set(metric_set_request("occupancy"), chip, 8);
        CHECK(occ.metrics.size() == metric_set_request("occupancy").requests.size());
        const auto st = resolve_metric_set(metric_set_request("stalls"), chip, 8);
        CHECK(st.metrics.size() + st.dropped.size() ==
              metric_set_request("stalls").requests.size());
    }
    // The wgmma stall reason exists from Hopper on only.
    const auto hopper = resolve_metric_set(metric_set_request("stalls"), "GH100", 8);
    CHECK(contains(hopper.metrics, "smsp__warp_issue_stalled_gmma_per_warp_active.pct"));
    const auto ampere = resolve_metric_set(metric_set_request("stalls"), "GA100", 8);
    CHECK(contains(ampere.dropped, "smsp__warp_issue_stalled_gmma_per_warp_active.pct"));
}

TEST_CASE("a user list is validated and refused over budget with a clear message") {
    if (host_api_skipped()) return;
    const auto spec = metric_set_request(" dram__bytes.sum , gpu__time_duration.sum ");
    CHECK(spec.name == "user");
    REQUIRE(spec.requests.size() == 2);
    CHECK(spec.requests[0].candidates.front() == "dram__bytes.sum");
    CHECK(resolve_metric_set(spec, "GH100", 1).passes == 1);

    try {
        (void)resolve_metric_set(metric_set_request("dram__bytes.sum,launch__grid_size,bogus.sum"),
                                 "GH100", 3);
        FAIL("invalid names accepted");
    } catch (const ktune::error& e) {
        CHECK(e.kind() == ktune::error_kind::input);
        const std::string msg = e.what();
        // Both bad names, and only those, in one message: the user fixes them in one go.
        CHECK(msg.find("on GH100: launch__grid_size, bogus.sum. ") != std::string::npos);
    }

    // Six tensor precisions at once is what ncu's tensor roofline pays for; refuse it at 3.
    std::string costly = "gpu__time_duration.sum";
    for (auto p : {"bf16_dst_fp32", "fp16", "tf32_dst_fp32", "fp8", "int8", "fp64"})
        costly += std::string(",sm__ops_path_tensor_src_") + p + ".sum";
    try {
        (void)resolve_metric_set(metric_set_request(costly), "GH100", 3);
        FAIL("costly set accepted");
    } catch (const ktune::error& e) {
        CHECK(e.kind() == ktune::error_kind::unsupported);
        CHECK(std::string(e.what()).find("budget of 3") != std::string::npos);
    }
    CHECK_THROWS_AS(metric_set_request(" , "), ktune::error);
}

TEST_CASE("tensor precision names and guesses from kernel names") {
    for (auto p : {tensor_precision::none, tensor_precision::bf16, tensor_precision::fp16,
                   tensor_precision::tf32, tensor_precision::fp8, tensor_precision::int8,
                   tensor_precision::fp64})
        CHECK(parse_tensor_precision(to_string(p)) == p);
    CHECK_FALSE(parse_tensor_precision("fp12").has_value());
    CHECK(guess_tensor_precision("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n") ==
          tensor_precision::bf16);
    CHECK(guess_tensor_precision("cutlass_80_tensorop_f16_s16816gemm_f16_256x128") ==
          tensor_precision::fp16);
    CHECK(guess_tensor_precision("sm90_xmma_gemm_e4m3e4m3_e4m3f32") == tensor_precision::fp8);
    CHECK(guess_tensor_precision("ampere_sgemm_tf32_128x64") == tensor_precision::tf32);
    CHECK(guess_tensor_precision("vectorized_elementwise_kernel") == tensor_precision::bf16);
}

TEST_CASE("the measured-precision roofline set carries every tensor counter that fits") {
    if (host_api_skipped()) return;
    const auto spec = metric_set_request("roofline", tensor_precision::measure);
    // GH100: the per-instruction wgmma counters of bf16, fp16 and tf32 ride in the base set's
    // 2 passes, so the precision is measured, not guessed from the kernel's name.
    const auto two = resolve_metric_set(spec, "GH100", 2);
    CHECK(two.passes == 2);
    CHECK(two.passes == count_passes("GH100", two.metrics));
    for (auto m : {"sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum",
                   "sm__ops_path_tensor_op_hgmma_src_fp16.sum",
                   "sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32.sum",
                   "sm__ops_path_tensor_src_bf16_dst_fp32.sum"}) {
        INFO(m);
        CHECK(contains(two.metrics, m));
    }
    // A budget of 3 buys more precisions (fp8 and the aggregate tf32), never a 4th pass.
    const auto three = resolve_metric_set(spec, "GH100", 3);
    CHECK(three.passes <= 3);
    CHECK(three.metrics.size() > two.metrics.size());
    CHECK(contains(three.metrics, "sm__ops_path_tensor_src_fp8.sum"));
    // Older chips: the aggregate counters, as many as fit.
    const auto ga = resolve_metric_set(spec, "GA100", 3);
    CHECK(ga.passes <= 3);
    CHECK(contains(ga.metrics, "sm__ops_path_tensor_src_bf16_dst_fp32.sum"));
    CHECK_FALSE(contains(ga.metrics, "sm__ops_path_tensor_op_hgmma_src_fp16.sum")); // no wgmma
    // The level throughputs of the hierarchical verdict ride in the same 3 passes on GH100, after
    // the common precisions (they never push bf16/fp16 tensor counters out).
    for (auto m : {names::l2_pct, names::l1_bank_reads_pct, names::l1_bank_writes_pct,
                   names::l1_lsu_pct, names::issue_pct}) {
        INFO(m);
        CHECK(contains(three.metrics, std::string(m)));
    }
    CHECK(contains(ga.metrics, "sm__ops_path_tensor_src_fp16_dst_fp32.sum"));
    CHECK(contains(ga.metrics, std::string(names::l2_pct)));
    // The required part over budget is still refused up front.
    CHECK_THROWS_AS(resolve_metric_set(spec, "GH100", 1), ktune::error);
    CHECK(parse_tensor_precision("measure") == tensor_precision::measure);
}

TEST_CASE("a resolved set travels to the profiled process as one line") {
    metric_set s{"roofline", "GH100", {"gpu__time_duration.sum", "dram__bytes_read.sum"}, {}, 3};
    const auto line = encode_metric_set(s);
    CHECK(line == "roofline|GH100|3|gpu__time_duration.sum,dram__bytes_read.sum");
    const auto back = decode_metric_set(line);
    REQUIRE(back.has_value());
    CHECK(*back == s);
    // Malformed lines are refused, so the process resolves the set itself.
    for (auto bad : {"", "roofline|GH100|3", "roofline|GH100|x|a.sum", "roofline||3|a.sum",
                     "roofline|GH100|3|a.sum,,b.sum", "a|b|1|c|d", "roofline|GH100|3|"}) {
        INFO(bad);
        CHECK_FALSE(decode_metric_set(bad).has_value());
    }
}
