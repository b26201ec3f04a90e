// ktune's GEMV as a provider beside cuBLASLt (docs/perf/gemm.md#gemv-decode), apart from the GPU:
// its config round trip, its rules, its candidates in the enumeration (its first picks measured
// beside the heuristic's, M <= 8 only), the space's axes beside the template's, a config winning
// a tune, its report and cache entry, and the run time accepting the entry only where it runs.
#include "catch.hpp"
#include "fake_lt.hpp"

#include "gemm/gemv.hpp"
#include "gemm/resolve.hpp"
#include "gemm/tune_loop.hpp"
#include "golden.hpp"
#include "ktune/cache/store.hpp"
#include "ktune/core/error.hpp"

#include <set>

using namespace gemm_test;

namespace {

const gemv_device h200{90, 132};
const sm90_device h100{132, 232448};

} // namespace

TEST_CASE("a GEMV config survives the config round trip and says what it is") {
    const algo_config a = gemv_algo({2, 2, 8});
    const ktune::config c = to_config(a);
    CHECK(c.get<std::string>("provider") == "ktune_gemv");
    CHECK(c.get<std::int64_t>("form") == 2);
    CHECK(c.get<std::int64_t>("unroll") == 2);
    CHECK(c.get<std::int64_t>("blocks") == 8);
    CHECK(c.find("algo") == nullptr);
    CHECK(c.find("bm") == nullptr); // nor another provider's knobs
    CHECK(algo_from_config(c) == a);
    CHECK(describe(a) == "ktune gemv block u2 b8");
    CHECK(describe(gemv_algo({1, 4, 16})) == "ktune gemv warp u4 b16");
    CHECK(to_string(provider::ktune_gemv) == "ktune_gemv");
    ktune::config bad = c;
    bad.set("unroll", std::string("deep"));
    CHECK_THROWS_AS(algo_from_config(bad), ktune::error);
    bad = c;
    bad.set("provider", std::string("ktune_gemm"));
    try {
        (void)algo_from_config(bad);
        FAIL("an unknown provider was accepted");
    } catch (const ktune::error& e) {
        CHECK(std::string(e.what()).find("ktune_gemv") != std::string::npos); // names the choices
    }
}

TEST_CASE("the GEMV rules take decode problems of up to 8 rows and refuse the rest") {
    const problem p = parse_problem("1x28672x8192", "bf16");
    CHECK(gemv_grid().size() == 32);
    for (const gemv_config& c : gemv_grid())
        CHECK(gemv_rejects(c, p, h200).empty());
    CHECK(gemv_rejects({3, 2, 8}, p, h200).find("form") != std::string::npos);
    CHECK(gemv_rejects({1, 3, 8}, p, h200).find("unroll") != std::string::npos);
    CHECK(gemv_rejects({1, 2, 32}, p, h200).find("blocks") != std::string::npos);
    CHECK(gemv_rejects({2, 2, 8}, parse_problem("8x4096x4096", "fp16"), h200).empty());
    CHECK(gemv_rejects({2, 2, 8}, parse_problem("9x4096x4096", "bf16"), h200).find("at most 8") !=
          std::string::npos);
    // fp8 where the device converts it (sm_89 and later), in chunks of 16 elements; M <= 8 still.
    CHECK(gemv_rejects({2, 2, 8}, parse_problem("1x4096x4096", "fp8"), h200).empty());
    CHECK(gemv_rejects({2, 2, 8}, parse_problem("1x4096x4096", "fp8"), gemv_device{80, 108})
              .find("sm_89") != std::string::npos);
    CHECK(gemv_rejects({2, 2, 8}, parse_problem("16x4096x4096", "fp8"), h200).find("at most 8") !=
          std::string::npos);
    CHECK(gemv_source({2, 1, 8}, 1, kernel_form_of(parse_problem("1x4096x4096", "fp8")))
              .find("#define IN_FP8 1\n") != std::string::npos);
    CHECK(
        gemv_rejects({2, 2, 8}, parse_problem("1x4096x4100", "bf16"), h200).find("multiple of 8") !=
        std::string::npos);
    CHECK(
        gemv_rejects({2, 2, 8}, parse_problem("1x4096x4096", "bf16", "nn"), h200).find("tn only") !=
        std::string::npos);
    CHECK(gemv_rejects({2, 2, 8}, p, gemv_device{75, 40}).find("sm_80") != std::string::npos);
    // Every epilogue and both 16-bit types compile into the source it builds.
    const problem e = parse_problem("4x4096x4096", "fp16", "tn", "gelu_bias");
    const std::string src = gemv_source({1, 4, 8}, 4, kernel_form_of(e));
    CHECK(src.find("#define MROWS 4\n") != std::string::npos);
    CHECK(src.find("#define FORM 1\n") != std::string::npos);
    CHECK(src.find("#define IN_F16 1\n") != std::string::npos);
    CHECK(src.find("#define EPILOGUE 3\n") != std::string::npos);
}

TEST_CASE("the GEMV's order starts where it measured fastest: a block a row at M <= 2, a warp a "
          "row above") {
    const auto one = gemv_ranked(parse_problem("1x28672x8192", "bf16"), h200);
    REQUIRE(one.size() == 32);
    CHECK(one[0] == gemv_config{2, 1, 8});
    CHECK(one[1].form == 2); // the block form's neighbours next
    const auto four = gemv_ranked(parse_problem("4x28672x8192", "bf16"), h200);
    CHECK(four[0] == gemv_config{1, 1, 16});
    std::set<std::tuple<int, int, int>> seen;
    for (const auto& c : four)
        seen.insert({c.form, c.unroll, c.blocks});
    CHECK(seen.size() == 32); // every config once
    CHECK(gemv_ranked(parse_problem("16x4096x4096", "bf16"), h200).empty());
}

TEST_CASE("a device of sm_80 or later adds the GEMV at M <= 8: its picks after the heuristic's, "
          "one space with the template") {
    fake_lt lt = two_algorithms();
    const problem p = parse_problem("1x4096x4096", "bf16");
    enumerate_options o;
    const enumeration plain = enumerate(lt, p, o);
    o.gemv = h200;
    const enumeration en = enumerate(lt, p, o);
    const auto ranked = gemv_ranked(p, h200);
    CHECK(en.stats.gemv == ranked.size());
    CHECK(en.all.size() == plain.all.size() + ranked.size());
    REQUIRE(en.heuristic.size() == plain.heuristic.size() + 2);
    for (std::size_t i = 0; i < 2; ++i) {
        const candidate& c = en.heuristic[plain.heuristic.size() + i];
        CHECK(c.algo == gemv_algo(ranked[i]));
        CHECK(en.all[plain.heuristic.size() + i] == c);
    }
    CHECK(enumerate(lt, parse_problem("64x4096x4096", "bf16"), o).stats.gemv == 0);

    // The template, the GEMV and cuBLASLt in one space: "kernel" 0, 1, 3, each candidate at its
    // own point and back.
    o.sm90 = h100;
    const enumeration both = enumerate(lt, p, o);
    const ktune::tune::space s = to_space(both.all);
    CHECK(s.axis_index("kernel"));
    CHECK(s.axis_index("sm90_bn"));
    CHECK(s.axis_index("gemv_form"));
    CHECK_FALSE(s.axis_index("mma_bm"));
    CHECK(s.valid_count() == both.all.size());
    std::set<std::uint64_t> codes;
    for (const auto& c : both.all) {
        const auto pt = point_of(s, c.algo);
        CHECK(algo_at(s, pt) == c.algo);
        codes.insert(s.code(pt));
    }
    CHECK(codes.size() == both.all.size());
}

TEST_CASE("a GEMV config can win a tune; its report and cache entry say so") {
    fake_lt lt = two_algorithms();
    const problem p = parse_problem("2x8192x8192", "bf16", "tn", "bias");
    const gemv_config first = gemv_ranked(p, h200).front();
    tune_options o;
    o.budget = 0;
    o.max_seconds = 0;
    const tune_hooks hooks{[&](const algo_config& a) {
                               if (a.provider != provider::ktune_gemv) return timed(100);
                               return timed(a.gemv == first ? 80 : 120);
                           },
                           [] { return timed(100); }};
    const tune_result r = tune_loop(lt, p, o, hooks, std::nullopt, std::nullopt, h200);
    CHECK(r.winner.algo == gemv_algo(first));
    CHECK(r.replaces_default);
    CHECK(r.space.gemv == 32);
    CHECK(r.space.sm90 == 0);
    tune_result pinned = r;
    pinned.tune_seconds = 0;
    pinned.space.seconds = 0;
    ktune_test::check_golden(to_json(pinned, 300, "measured") + "\n", "gemm/tune_report_gemv.json");
    const std::string text = format_text(pinned, 300, "measured");
    CHECK(text.find("32 configs of ktune's GEMV") != std::string::npos);
    CHECK(text.find("best measured 80.00 us (ktune gemv block u1 b8)") != std::string::npos);

    const ktune::cache::environment env{"sm_90", 13000, 580, ktune::cache::current_protocol};
    const std::vector entries{to_cache_entry(r, env, {})};
    ktune_test::check_golden(ktune::cache::format_cache(entries), "gemm/cache_entry_gemv.json");
    const std::size_t ws = std::size_t{32} << 20;
    const resolved here = resolve(lt, entries, p, env, ws, std::nullopt, std::nullopt, h200);
    CHECK(here.source == algo_source::cache);
    CHECK(here.algo == r.winner.algo);
    // No sm_80 device, or one below sm_80: the heuristic.
    CHECK(resolve(lt, entries, p, env, ws).source == algo_source::heuristic);
    CHECK(
        resolve(lt, entries, p, env, ws, std::nullopt, std::nullopt, gemv_device{75, 40}).source ==
        algo_source::heuristic);
}

TEST_CASE("fp8 below 16 rows without the template: the GEMV is the default and the miss's answer") {
    // cuBLASLt does not run fp8 at M % 16 != 0; on an sm_89 GPU (no template) the GEMV's first
    // config is both what a cache miss runs and the default a tune measures against.
    fake_lt lt = two_algorithms();
    const problem p = parse_problem("1x4096x4096", "fp8");
    const gemv_device ada{89, 142};
    const ktune::cache::environment env{"sm_89", 13000, 580, ktune::cache::current_protocol};
    const resolved miss =
        resolve(lt, {}, p, env, std::size_t{32} << 20, std::nullopt, std::nullopt, ada);
    REQUIRE(miss.found);
    CHECK(miss.source == algo_source::heuristic);
    CHECK(miss.algo == gemv_algo(gemv_ranked(p, ada).front()));
    CHECK_FALSE(resolve(lt, {}, p, env, std::size_t{32} << 20).found); // nothing runs it

    tune_options o;
    o.budget = 0;
    o.max_seconds = 0;
    const gemv_config second = gemv_ranked(p, ada)[1];
    const tune_hooks hooks{[&](const algo_config& a) { return timed(a.gemv == second ? 40 : 50); },
                           [] { return timed(999); }};
    const tune_result r = tune_loop(lt, p, o, hooks, std::nullopt, std::nullopt, ada);
    CHECK(r.default_pick.algo == miss.algo);
    CHECK(r.winner.algo == gemv_algo(second));
    // The own kernel's best beside the default, as no cuBLASLt candidate ran.
    const std::string text = format_text(r, 0, "");
    CHECK(text.find("best measured 40.00 us (ktune gemv") != std::string::npos);
    CHECK(text.find("1.250x the default's 50.00 us") != std::string::npos);
}
