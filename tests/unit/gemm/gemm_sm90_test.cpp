// ktune's Hopper GEMM template as a provider beside cuBLASLt (docs/perf/gemm.md#hopper-template),
// apart from the GPU: its space and prior, its candidates in the enumeration (the prior's picks
// measured beside the heuristic's), the space's axes, a template config winning a tune, its
// report and cache entry, and the run time accepting the entry only where it can run.
#include "catch.hpp"
#include "fake_lt.hpp"

#include "gemm/resolve.hpp"
#include "gemm/sm90_space.hpp"
#include "gemm/tune_loop.hpp"
#include "golden.hpp"
#include "ktune/cache/store.hpp"
#include "ktune/core/error.hpp"

#include <algorithm>
#include <set>

using namespace gemm_test;

namespace {

const sm90_device h100{132, 232448};

algo_config sm90_algo(const sm90_config& c) {
    algo_config a;
    a.provider = provider::ktune_sm90;
    a.sm90 = c;
    return a;
}

} // namespace

TEST_CASE("a template config survives the config round trip and says what it is") {
    const algo_config a = sm90_algo({240, 4, 2, 16, 1, 4, 0});
    const ktune::config c = to_config(a);
    CHECK(c.get<std::string>("provider") == "ktune_sm90");
    CHECK(c.get<std::int64_t>("bn") == 240);
    CHECK(c.get<std::int64_t>("epi_parts") == 4);
    CHECK(c.find("algo") == nullptr); // no cuBLASLt attribute rides along
    CHECK(algo_from_config(c) == a);
    CHECK(describe(a) == "ktune sm90 bn240 s4 c2 g16 x1 e4 t0");
    const algo_config staged = sm90_algo({256, 3, 2, 8, 1, 0, 1});
    CHECK(algo_from_config(to_config(staged)) == staged);
    // A cuBLASLt config names no provider: entries written before the template read as before.
    CHECK(to_config(algo_config{}).find("provider") == nullptr);
    ktune::config bad = c;
    bad.set("provider", std::string("cutlass"));
    CHECK_THROWS_AS(algo_from_config(bad), ktune::error);
    bad = c;
    bad.set("bn", std::string("wide"));
    CHECK_THROWS_AS(algo_from_config(bad), ktune::error);
}

TEST_CASE("the template's space: every knob, the rules, the prior's order") {
    CHECK(sm90_grid().size() == 21840);
    const problem p = parse_problem("4096x4096x4096", "bf16");
    const auto kept = sm90_configs(p, h100);
    CHECK(kept.size() > 3000);
    CHECK(kept.size() < sm90_grid().size()); // shared memory and registers prune
    for (const auto& c : kept)
        CHECK(sm90_rejects(c, p, h100.max_shared).empty());
    // Problems the template does not take have no configs at all.
    CHECK(sm90_configs(parse_problem("4096x4096x4093", "bf16"), h100).empty());
    CHECK(sm90_configs(parse_problem("4096x4096x4096", "fp16"), h100).empty());
    CHECK(sm90_configs(parse_problem("4096x4096x4096", "bf16", "nn"), h100).empty());
    // Ranked by the prior, cheapest first; at 4096^3 the full 128 x 256 tiles lead.
    const auto ranked = sm90_ranked(p, h100);
    REQUIRE(ranked.size() == kept.size());
    for (std::size_t i = 1; i < ranked.size(); ++i)
        CHECK(sm90_cost(ranked[i - 1], p, h100) <= sm90_cost(ranked[i], p, h100));
    CHECK(ranked.front().bn == 256);
    CHECK(ranked.front().consumers == 2);
    CHECK(ranked.front().tma_store == 1);
    // Where 256-wide tiles leave a wave two-thirds empty (M = 2048 over 8 of them, N = 11008:
    // 688 tiles on 132 SMs), the prior prefers a width that fills the waves better.
    const problem ffn = parse_problem("2048x11008x4096", "bf16");
    CHECK(sm90_cost(sm90_config{128, 6, 2, 8, 1, 4}, ffn, h100) <
          sm90_cost(sm90_config{256, 4, 2, 8, 1, 0}, ffn, h100));
}

TEST_CASE("an sm_90 device adds the template: the prior's picks after the heuristic's") {
    fake_lt lt = two_algorithms();
    const problem p = parse_problem("2048x4096x4096", "bf16");
    enumerate_options o;
    const enumeration plain = enumerate(lt, p, o);
    o.sm90 = h100;
    const enumeration en = enumerate(lt, p, o);
    const auto ranked = sm90_ranked(p, h100);
    CHECK(en.stats.sm90 == ranked.size());
    CHECK(en.all.size() == plain.all.size() + ranked.size());
    REQUIRE(en.heuristic.size() == plain.heuristic.size() + 2);
    for (std::size_t i = 0; i < plain.heuristic.size(); ++i)
        CHECK(en.heuristic[i] == plain.heuristic[i]);
    for (std::size_t i = 0; i < 2; ++i) {
        const candidate& c = en.heuristic[plain.heuristic.size() + i];
        CHECK(c.algo == sm90_algo(ranked[i]));
        CHECK(c.heuristic_rank == int(plain.heuristic.size() + i));
        CHECK(en.all[plain.heuristic.size() + i] == c); // measured first, as every pick
    }
    // Not for problems it does not take.
    CHECK(enumerate(lt, parse_problem("2048x4096x4093", "bf16"), o).stats.sm90 == 0);

    // One space over both providers: every candidate stands at its own point and back.
    const ktune::tune::space s = to_space(en.all);
    CHECK(s.axis_index("kernel"));
    CHECK(s.axis_index("sm90_bn"));
    CHECK(s.valid_count() == en.all.size());
    std::set<std::uint64_t> codes;
    for (const auto& c : en.all) {
        const auto pt = point_of(s, c.algo);
        CHECK(algo_at(s, pt) == c.algo);
        codes.insert(s.code(pt));
    }
    CHECK(codes.size() == en.all.size());
    // Without the template the space has no template axes (recorded spaces keep their shape).
    CHECK_FALSE(to_space(plain.all).axis_index("kernel"));
}

TEST_CASE("a template config can win a tune; cuBLAS's first pick stays the default") {
    fake_lt lt = two_algorithms();
    const problem p = parse_problem("2048x4096x4096", "bf16");
    const sm90_config first = sm90_ranked(p, h100).front();
    tune_options o;
    o.budget = 0; // the picks only: cuBLAS's, then the template's two
    o.max_seconds = 0;
    int sm90_runs = 0;
    const tune_hooks hooks{[&](const algo_config& a) {
                               if (a.provider != provider::ktune_sm90) return timed(100);
                               ++sm90_runs;
                               return timed(a.sm90 == first ? 80 : 120);
                           },
                           [] { return timed(100); }};
    const tune_result r = tune_loop(lt, p, o, hooks, h100);
    CHECK(r.default_pick.algo.provider == provider::cublaslt);
    CHECK(r.default_pick.algo == lt.picks[0].algo);
    CHECK(r.replaces_default);
    CHECK(r.winner.algo == sm90_algo(first));
    CHECK(r.speedup == Approx(100.0 / 80.0));
    CHECK(sm90_runs == 2 + 2); // the two picks, then the winner twice in the confirmation
    CHECK(r.space.sm90 > 0);
    // With own_kernels off the template stays out even on an sm_90 device.
    o.own_kernels = false;
    CHECK(tune_loop(lt, p, o, hooks, h100).space.sm90 == 0);

    tune_result pinned = r;
    pinned.tune_seconds = 0;
    pinned.space.seconds = 0;
    ktune_test::check_golden(to_json(pinned, 800, "measured") + "\n", "gemm/tune_report_sm90.json");
    const std::string text = format_text(pinned, 800, "measured");
    CHECK(text.find("configs of ktune's Hopper GEMM template") != std::string::npos);
    CHECK(text.find("ktune sm90 bn") != std::string::npos);
    // The template's best beside the best cuBLASLt candidate: 80 µs against 100 µs.
    CHECK(text.find("best measured 80.00 us (ktune sm90 bn") != std::string::npos);
    CHECK(text.find("1.250x the best cuBLASLt candidate's 100.00 us") != std::string::npos);
}

TEST_CASE("a template cache entry is used where the template runs, else the heuristic answers") {
    fake_lt lt = two_algorithms();
    const problem p = parse_problem("2048x4096x4096", "bf16");
    tune_result t;
    t.prob = p;
    t.cublaslt_version = lt.lib_version;
    t.winner.algo = sm90_algo({256, 4, 2, 8, 1, 0});
    t.winner.median_us = 50;
    const ktune::cache::environment env{"sm_90", 13000, 580, ktune::cache::current_protocol};
    const std::vector entries{to_cache_entry(t, env, {})};
    // The stored form (docs/formats.md#ktunecache--gemm-entries): "provider":"ktune_sm90".
    ktune_test::check_golden(ktune::cache::format_cache(entries), "gemm/cache_entry_sm90.json");
    const std::size_t ws = std::size_t{32} << 20;
    const resolved here = resolve(lt, entries, p, env, ws, h100);
    CHECK(here.source == algo_source::cache);
    CHECK(here.algo == t.winner.algo);
    CHECK(lt.checked.empty()); // not AlgoCheck's to judge
    // No sm_90 device: the heuristic.
    const resolved elsewhere = resolve(lt, entries, p, env, ws);
    CHECK(elsewhere.source == algo_source::heuristic);
    CHECK(elsewhere.algo == lt.picks[0].algo);
    // A device with less shared memory than the config's ring: the heuristic.
    CHECK(resolve(lt, entries, p, env, ws, sm90_device{132, 100 * 1024}).source ==
          algo_source::heuristic);
}
