// The tuning loop on synthetic timings: heuristic picks first, the strategy within its budget,
// failures as statuses, and the rule that a tie never replaces cuBLAS's default pick.
#include "catch.hpp"
#include "fake_lt.hpp"

#include "gemm/reference.hpp"
#include "gemm/tune_loop.hpp"
#include "golden.hpp"
#include "ktune/core/error.hpp"
#include "ktune/gemm/plan.hpp"
#include "ktune/gemm/report.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

using namespace gemm_test;

namespace {

// Synthetic times: 100 us for everything, `fast` for one configuration, failures for splitk 2.
tune_hooks hooks_with(const algo_config& fast_algo, double fast, double half_ci, int* runs) {
    return {[=](const algo_config& a) {
                ++*runs;
                if (a.splitk == 2) {
                    timing t;
                    t.status = ktune::tune::eval_status::wrong_result;
                    t.message = "3 of 516 checked elements outside tolerance";
                    return t;
                }
                return a == fast_algo ? timed(fast, half_ci) : timed(100, half_ci);
            },
            [=] { return timed(100, half_ci); }};
}

} // namespace

TEST_CASE("a candidate clearly faster than the default replaces it") {
    fake_lt lt = two_algorithms();
    const problem p = parse_problem("64x4096x4096", "bf16");
    const algo_config fast{10, 18, 8, 0, 0, 1, 0, 1, 0};
    int runs = 0;
    tune_options o;
    o.strategy = "exhaustive";
    o.budget = 5000;
    const tune_result r = tune_loop(lt, p, o, hooks_with(fast, 80, 1, &runs));
    CHECK(r.replaces_default);
    CHECK(r.winner.algo == fast);
    CHECK(r.speedup == Approx(100.0 / 80.0));
    CHECK(r.evaluated.front().heuristic_rank == 0); // the heuristic's picks come first
    CHECK(r.evaluated.size() == r.space.candidates);
    // Each candidate measured once, plus the confirmation of the winner.
    CHECK(runs == int(r.space.candidates) + 2); // + the interleaved confirmation
    std::size_t wrong = 0;
    for (const auto& c : r.evaluated)
        wrong += c.status == "wrong_result" ? 1 : 0;
    CHECK(wrong > 0); // failures are statuses and the search went on
}

TEST_CASE("a tune leaves out the candidates that would end it past max_seconds") {
    // docs/perf/gemm.md#tune-time: each measurement here takes 20 ms; a 1 s target keeps the
    // confirmation's four in reserve, so a few dozen candidates fit of the space's many.
    fake_lt lt = two_algorithms();
    const problem p = parse_problem("64x4096x4096", "bf16");
    int runs = 0;
    const tune_hooks fast = hooks_with({10, 18, 8, 0, 0, 1, 0, 1, 0}, 80, 1, &runs);
    const tune_hooks slow{[&](const algo_config& a) {
                              std::this_thread::sleep_for(std::chrono::milliseconds(20));
                              return fast.run(a);
                          },
                          [&] {
                              std::this_thread::sleep_for(std::chrono::milliseconds(20));
                              return fast.run_default();
                          }};
    tune_options o;
    o.strategy = "exhaustive";
    o.budget = 5000;
    o.max_seconds = 1.0;
    const tune_result r = tune_loop(lt, p, o, slow);
    CHECK(r.max_seconds == 1.0);
    CHECK(r.time_cut > 0);
    CHECK(r.evaluated.size() + r.time_cut >= std::min<std::size_t>(5000, r.space.candidates));
    CHECK(r.evaluated.size() < r.space.candidates);
    INFO(r.space.candidates << " candidates, " << r.evaluated.size() << " measured");
    CHECK(r.evaluated.size() >= 3); // the pace leaves room for some
    CHECK(r.winner.ok());
    // A target the default's own measurement already exceeds: nothing else is measured, every
    // candidate proposed (the heuristic's picks, then the search's, the same ones among them)
    // is counted once, and the default stays the recommendation.
    o.max_seconds = 0.001;
    const tune_result none = tune_loop(lt, p, o, slow);
    CHECK(none.evaluated.empty());
    CHECK(none.time_cut == std::min<std::size_t>(5000, none.space.candidates));
    CHECK_FALSE(none.replaces_default);
    CHECK(none.winner.ok());
    // No target: the whole space.
    o.max_seconds = 0;
    const tune_result all = tune_loop(lt, p, o, fast);
    CHECK(all.time_cut == 0);
    CHECK(all.evaluated.size() == all.space.candidates);
}

TEST_CASE("a tie never replaces the default pick") {
    fake_lt lt = two_algorithms();
    const problem p = parse_problem("64x4096x4096", "bf16");
    const algo_config fast{10, 18, 8, 0, 0, 1, 0, 1, 0};
    int runs = 0;
    tune_options o;
    o.strategy = "exhaustive";
    o.budget = 5000;
    // 1 % faster, but the CIs (+-2 us) overlap: a tie.
    const tune_result r = tune_loop(lt, p, o, hooks_with(fast, 99, 2, &runs));
    CHECK_FALSE(r.replaces_default);
    CHECK(r.speedup == 1.0);
    CHECK(r.winner.algo == lt.picks[0].algo); // the heuristic's first pick, as attributes
    CHECK(r.winner.heuristic_rank == 0);
}

TEST_CASE("the strategy's budget bounds the measurements beyond the heuristic's picks") {
    fake_lt lt = two_algorithms();
    int runs = 0;
    tune_options o;
    o.strategy = "random";
    o.budget = 5;
    const tune_result r =
        tune_loop(lt, parse_problem("64x4096x4096", "bf16"), o, hooks_with({}, 80, 1, &runs));
    CHECK(r.evaluated.size() <= 2 + 5);
    CHECK(r.evaluated.size() >= 5);
}

TEST_CASE("no algorithm at all is an unsupported error, not a crash") {
    fake_lt lt;
    int runs = 0;
    CHECK_THROWS_AS(
        tune_loop(lt, parse_problem("64x64x64", "bf16"), {}, hooks_with({}, 1, 1, &runs)),
        ktune::error);
}

TEST_CASE("the reference check catches a wrong element and passes a rounded one") {
    const problem p = parse_problem("64x48x4096", "bf16", "nt");
    const input_seeds s;
    const reference_value r = reference_at(p, s, 5, 7);
    // Inputs are k/8: exact in every input type.
    for (const dtype t : {dtype::bf16, dtype::fp16, dtype::fp8_e4m3})
        for (const std::uint64_t i : {0u, 1u, 2u, 99u}) {
            const float v = input_value(9, i);
            if (t != dtype::fp8_e4m3) CHECK(decode_output(t, encode(t, v)) == v);
        }
    CHECK(encode(dtype::fp8_e4m3, 0.875f) == 0x36);  // 0 0110 110: 1.75 x 2^-1
    CHECK(encode(dtype::fp8_e4m3, -0.125f) == 0xA0); // 1 0100 000: -1.0 x 2^-3
    const double tol = tolerance(p, r);
    CHECK(tol > 0);
    CHECK(tol < 0.05 * r.abs_sum); // tight enough that a wrong tile or a missing K-split fails
    const double rounded = r.value * (1 + std::ldexp(1.0, -8));
    CHECK(std::fabs(rounded - r.value) <= tol);
    // Half of K missing (a split-K reduction that dropped a partial) is far outside it.
    const problem half = parse_problem("64x48x2048", "bf16", "nt");
    CHECK(std::fabs(reference_at(half, s, 5, 7).value - r.value) > tol);
}

namespace {

// A tune of the two fake algorithms where one configuration is 1.25x faster than the default.
tune_result golden_tune(const char* shape = "64x4096x4096") {
    fake_lt lt = two_algorithms();
    int runs = 0;
    tune_options o;
    o.strategy = "exhaustive";
    o.budget = 5000;
    tune_result r = tune_loop(lt, parse_problem(shape, "bf16"), o,
                              hooks_with({10, 18, 8, 0, 0, 1, 0, 1, 0}, 80, 1, &runs));
    r.evaluated.resize(3); // keep the golden file short
    r.gpu = "NVIDIA H100 80GB HBM3";
    r.tune_seconds = 1.5;
    r.space.seconds = 0.25;
    return r;
}

} // namespace

TEST_CASE("the ktune.tune.gemm report matches the golden file") {
    const tune_result r = golden_tune();
    const std::string text = to_json(r, 800, "measured") + "\n";
    const char* path = KTUNE_TEST_DATA_DIR "/gemm/tune_report.json";
    // After a deliberate format change: KTUNE_UPDATE_GOLDEN=1 rewrites the file; review the diff.
    if (std::getenv("KTUNE_UPDATE_GOLDEN")) std::ofstream(path, std::ios::binary) << text;
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in);
    std::stringstream golden;
    golden << in.rdbuf();
    CHECK(text == golden.str());
    CHECK(format_text(r, 800, "measured").find("1.250x faster than cuBLAS's default") !=
          std::string::npos);
}

TEST_CASE("--vs-torch adds the torch block; several tunes make a ktune.tune.gemm_plan") {
    const tune_result r = golden_tune();
    torch_timing t;
    t.ok = true;
    t.median_us = 100;
    t.ci_lo_us = 99;
    t.ci_hi_us = 101.5;
    t.torch_version = "2.9.0";
    const std::string with_torch = to_json(r, 800, "measured", t);
    ktune_test::check_golden(with_torch + "\n", "gemm/tune_report_torch.json");
    // The same report as without, plus the block: nothing else moves.
    auto j = nlohmann::json::parse(with_torch);
    j.erase("torch");
    CHECK(j == nlohmann::json::parse(to_json(r, 800, "measured")));
    CHECK(format_torch(r, t).find("ktune 1.250x") != std::string::npos);
    torch_timing missing;
    missing.message = "no module named torch";
    CHECK(to_json(r, 800, "measured", missing).find("\"message\": \"no module named torch\"") !=
          std::string::npos);
    CHECK(format_torch(r, missing) == "  torch.matmul: not timed: no module named torch\n");

    const std::vector<std::string> tunes{to_json(r, 800, "measured"),
                                         to_json(golden_tune("16x4096x4096"), 0, "datasheet")};
    ktune_test::check_golden(plan_json(tunes) + "\n", "gemm/tune_plan.json");
}

TEST_CASE(
    "a --plan file's entries become GEMM problems; another op or a bad shape names the entry") {
    const auto entries = ktune::tune::parse_tune_plan(
        R"({"tunes": [{"op": "gemm", "shape": "16x4096x4096", "dtype": "bf16", "budget": 8},
                      {"op": "gemm", "shape": "64x64x64", "dtype": "fp16", "strategy": "random"}]})",
        "plan.json");
    const auto tunes = plan_problems(entries, "nt", "bias");
    REQUIRE(tunes.size() == 2);
    CHECK(tunes[0] == planned_problem{parse_problem("16x4096x4096", "bf16", "nt", "bias"), 8, ""});
    CHECK(tunes[1] ==
          planned_problem{parse_problem("64x64x64", "fp16", "nt", "bias"), 0, "random"});

    const auto message = [](const char* text) {
        try {
            plan_problems(ktune::tune::parse_tune_plan(text, "plan.json"), "tn", "none");
        } catch (const ktune::error& e) {
            CHECK(e.kind() == ktune::error_kind::input);
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    CHECK(message(R"({"tunes": [{"op": "gemm", "shape": "16x64x64", "dtype": "bf16"},
                                {"op": "softmax", "shape": "64x64", "dtype": "bf16"}]})")
              .find("plan.json: /tunes/1: op 'softmax'") != std::string::npos);
    CHECK(message(R"({"tunes": [{"op": "gemm", "shape": "16x64", "dtype": "bf16"}]})")
              .find("plan.json: /tunes/0: ") != std::string::npos);
}
