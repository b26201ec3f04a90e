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
    // A cluster sharing B says so in the entry and the name; one sharing A writes no field, so
    // entries written before cluster_b read as sharing A.
    const algo_config shares_b = sm90_algo({16, 16, 1, 8, 2, 0, 0, 1, 1});
    CHECK(to_config(shares_b).get<std::int64_t>("cluster_b") == 1);
    CHECK(algo_from_config(to_config(shares_b)) == shares_b);
    CHECK(describe(shares_b) == "ktune sm90 bn16 s16 c1 g8 x2b e0 t0");
    CHECK(sm90_name(shares_b.sm90) == "bn16 s16 c1 g8 x2b e0 t0");
    CHECK(to_config(sm90_algo({128, 4, 1, 8, 2})).find("cluster_b") == nullptr);
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
    CHECK(sm90_grid().size() == 90688);
    const problem p = parse_problem("4096x4096x4096", "bf16");
    const auto kept = sm90_configs(p, h100);
    CHECK(kept.size() > 3000);
    CHECK(kept.size() < sm90_grid().size()); // shared memory and registers prune
    for (const auto& c : kept)
        CHECK(sm90_rejects(c, p, h100.max_shared).empty());
    // Problems the template does not take have no configs at all.
    CHECK(sm90_configs(parse_problem("4096x4096x4093", "bf16"), h100).empty());
    // fp16 and fp8 keep the same configs as bf16 (a slab row is 128 bytes whatever the type);
    // fp8's prior counts half the bytes and twice the tensor-core rate.
    CHECK(sm90_configs(parse_problem("4096x4096x4096", "fp16"), h100).size() == kept.size());
    CHECK(sm90_configs(parse_problem("4096x4096x4096", "fp8"), h100).size() == kept.size());
    CHECK(sm90_cost(kept.front(), parse_problem("4096x4096x4096", "fp8"), h100) <
          sm90_cost(kept.front(), p, h100));
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

TEST_CASE("a cluster sharing B: in the grid, its rules, and priced by the weights read once") {
    const problem decode = parse_problem("32x4096x4096", "bf16");
    const auto kept = sm90_configs(decode, h100);
    CHECK(std::any_of(kept.begin(), kept.end(),
                      [](const sm90_config& c) { return c.cluster_b == 1 && c.bn == 16; }));
    // Any bn: each block loads its own A slab whole (no 8-row share of it to keep whole).
    CHECK(sm90_rejects({8, 16, 1, 8, 2, 0, 0, 1, 1}, decode, h100.max_shared).empty());
    CHECK(sm90_rejects({8, 16, 1, 8, 2}, decode, h100.max_shared).find("swizzle") !=
          std::string::npos);
    CHECK(sm90_rejects({16, 16, 1, 8, 1, 0, 0, 1, 1}, decode, h100.max_shared)
              .find("without a cluster") != std::string::npos);
    CHECK(
        sm90_rejects({16, 16, 1, 8, 2, 0, 0, 1, 2}, decode, h100.max_shared).find("cluster_b 2") !=
        std::string::npos);
    // Split-K stays out of clusters, whichever operand they share.
    CHECK(sm90_rejects({16, 16, 1, 8, 2, 0, 0, 2, 1}, decode, h100.max_shared).find("split-K") !=
          std::string::npos);
    // Two token tiles of 16 sharing the weights read them once, where the same tiles alone read
    // them twice (docs/perf/gemm.md#cluster-b); a cluster sharing A costs more than either.
    const sm90_config alone{16, 16, 1, 8, 1}, shares_a{16, 16, 1, 8, 2},
        shares_b{16, 16, 1, 8, 2, 0, 0, 1, 1};
    CHECK(sm90_cost(shares_b, decode, h100) < sm90_cost(alone, decode, h100));
    CHECK(sm90_cost(alone, decode, h100) < sm90_cost(shares_a, decode, h100));
    // A large GEMM's raster already reads B once, and one column tile has nothing to share:
    // there a cluster sharing B ranks after the same tile alone, as one sharing A does.
    const problem big = parse_problem("4096x4096x4096", "bf16");
    CHECK(sm90_cost(sm90_config{128, 6, 2, 8, 1}, big, h100) <
          sm90_cost(sm90_config{128, 6, 2, 8, 2, 0, 0, 1, 1}, big, h100));
    const problem m16 = parse_problem("16x4096x4096", "bf16");
    CHECK(sm90_cost(sm90_config{16, 16, 1, 8, 1}, m16, h100) <
          sm90_cost(sm90_config{16, 16, 1, 8, 2, 0, 0, 1, 1}, m16, h100));
}

TEST_CASE("split-K: its rules, its workspace, its config, and the prior's picks for decode") {
    const problem decode = parse_problem("1x4096x4096", "bf16");
    const sm90_config split{8, 6, 1, 8, 1, 0, 0, 4};
    CHECK(sm90_rejects(split, decode, h100.max_shared).empty());
    CHECK(sm90_name(split) == "bn8 s6 c1 g8 x1 e0 t0 k4");
    CHECK(sm90_name(sm90_default) == "bn256 s4 c2 g8 x1 e0 t0"); // unsplit names as before
    // 64 tiles of 64 x 8, four fp32 partials each, and a counter a tile.
    CHECK(sm90_workspace_bytes(split, decode) == 64 * (64 * 8 * 4 * 4) + 64 * 4);
    CHECK(sm90_workspace_bytes(sm90_default, decode) == 0);
    const auto rejects = [&](sm90_config c, const problem& p, const char* why) {
        const std::string got = sm90_rejects(c, p, h100.max_shared);
        INFO(sm90_name(c) << ": " << got);
        CHECK(got.find(why) != std::string::npos);
    };
    rejects({64, 4, 1, 8, 1, 0, 1, 2}, decode, "direct-store epilogue");
    rejects({64, 4, 1, 8, 1, 2, 0, 2}, decode, "direct-store epilogue");
    rejects({64, 4, 1, 8, 2, 0, 0, 2}, decode, "direct-store epilogue");
    rejects({8, 4, 1, 8, 1, 0, 0, 17}, decode, "1 to 16");
    rejects({8, 4, 1, 8, 1, 0, 0, 0}, decode, "1 to 16");
    rejects({8, 4, 1, 8, 1, 0, 0, 4}, parse_problem("1x4096x192", "bf16"), "fewer 64-element");
    rejects({224, 4, 2, 8, 1, 0, 0, 16}, parse_problem("8192x8192x8192", "bf16"), "MiB workspace");
    rejects({240, 4, 2, 8, 1, 0, 0, 2}, decode, "spills");
    // The cache entry and the report say "splits" only where it splits, so older entries read
    // as one slice.
    const ktune::config c = to_config(sm90_algo(split));
    CHECK(c.get<std::int64_t>("splits") == 4);
    CHECK(algo_from_config(c) == sm90_algo(split));
    CHECK(describe(sm90_algo(split)) == "ktune sm90 bn8 s6 c1 g8 x1 e0 t0 k4");
    CHECK(to_config(sm90_algo(sm90_default)).find("splits") == nullptr);
    // A decode GEMM's 64 tiles fill half the SMs, yet DRAM binds: the prior's best is the
    // narrowest tile that holds the tokens, unsplit (split-K's fix-up costs more than the idle
    // SMs, docs/perf/gemm.md#split-k-fixup), and the same tile split in two next; at 4096^3 it
    // never splits.
    const auto decode_ranked = sm90_ranked(decode, h100);
    CHECK(decode_ranked[0] == sm90_config{8, 20, 1, 8, 1});
    const auto has = [](const std::vector<sm90_config>& v, const sm90_config& want) {
        return std::find(v.begin(), v.end(), want) != v.end();
    };
    CHECK(has(sm90_picks(decode_ranked, decode, h100, 4), sm90_config{8, 20, 1, 8, 1, 0, 0, 2}));
    for (const auto& big : {"4096x4096x4096", "2048x11008x4096", "8192x8192x8192"}) {
        const auto ranked = sm90_ranked(parse_problem(big, "bf16"), h100);
        for (std::size_t i = 0; i < 16; ++i)
            CHECK(ranked[i].splits == 1);
    }
    // Where the prior cannot order the decode forms (DRAM-bound ties), a tune measures the best
    // of each; at 4096^3 its first picks are the ranked order.
    CHECK(sm90_decode_form({16, 20, 1, 8, 1}) == 0);
    CHECK(sm90_decode_form({16, 20, 1, 8, 1, 0, 0, 2}) == 1);
    CHECK(sm90_decode_form({8, 20, 1, 8, 2, 0, 0, 1, 1}) == 2);
    CHECK(sm90_decode_form({88, 10, 1, 8, 1, 0, 0, 1, 0, 1}) == 3);
    const problem ffn_decode = parse_problem("8x11008x4096", "bf16");
    const auto ffn_ranked = sm90_ranked(ffn_decode, h100);
    const auto ffn_picks = sm90_picks(ffn_ranked, ffn_decode, h100, 2);
    REQUIRE(ffn_picks.size() == 2);
    CHECK(ffn_picks[0] == ffn_ranked[0]);
    CHECK(sm90_decode_form(ffn_picks[0]) != sm90_decode_form(ffn_picks[1]));
    const problem big = parse_problem("4096x4096x4096", "bf16");
    const auto big_ranked = sm90_ranked(big, h100);
    const auto big_picks = sm90_picks(big_ranked, big, h100, 3);
    REQUIRE(big_picks.size() == 3);
    for (std::size_t i = 0; i < 3; ++i)
        CHECK(big_picks[i] == big_ranked[i]);
    CHECK(sm90_picks(big_ranked, big, h100, 0).empty());
    // At 16 tokens the four decode forms are within the prior's tie band: a tune measures the
    // best of each, unsplit first (H200, 16 x 4096 x 4096: 10.80 us plain; split 10.79 told B
    // is weights; docs/perf/gemm.md#split-k-fixup, #swap-ab). At 64, split-K is out of it.
    const problem m16 = parse_problem("16x4096x4096", "bf16");
    const auto m16_picks = sm90_picks(sm90_ranked(m16, h100), m16, h100, 4);
    REQUIRE(m16_picks.size() == 4);
    CHECK(m16_picks[0] == sm90_config{16, 20, 1, 8, 1});
    CHECK(has(m16_picks, sm90_config{8, 20, 1, 8, 2, 0, 0, 1, 1}));
    CHECK(has(m16_picks, sm90_config{16, 20, 1, 8, 1, 0, 0, 2}));
    std::set<int> m16_forms;
    for (const auto& pick : m16_picks)
        m16_forms.insert(sm90_decode_form(pick));
    CHECK(m16_forms == std::set<int>{0, 1, 2, 3});
    const problem m64 = parse_problem("64x4096x4096", "bf16");
    const auto m64_ranked = sm90_ranked(m64, h100);
    const auto m64_picks = sm90_picks(m64_ranked, m64, h100, 4);
    REQUIRE(m64_picks.size() == 4);
    CHECK(m64_picks[0] == sm90_config{64, 12, 1, 8, 1});
    CHECK(has(m64_picks, sm90_config{32, 16, 1, 8, 1, 0, 0, 1, 0, 1}));
    CHECK(has(m64_picks, sm90_config{32, 16, 1, 8, 2, 0, 0, 1, 1}));
    for (const auto& pick : m64_picks)
        CHECK(pick.splits == 1);
    // The swapped form at 64 x 11008 x 4096: weight tiles of 88 rows, 126 in one wave, the
    // fastest measured, among the picks.
    const problem ffn64 = parse_problem("64x11008x4096", "bf16");
    CHECK(has(sm90_picks(sm90_ranked(ffn64, h100), ffn64, h100, 4),
              sm90_config{88, 10, 1, 8, 1, 0, 0, 1, 0, 1}));
    // The swapped form: in the cache entry and the space only where set.
    const sm90_config swapped{96, 10, 1, 8, 1, 0, 0, 1, 0, 1};
    const ktune::config sc = to_config(sm90_algo(swapped));
    CHECK(sc.get<std::int64_t>("swap_ab") == 1);
    CHECK(algo_from_config(sc) == sm90_algo(swapped));
    CHECK(describe(sm90_algo(swapped)) == "ktune sm90 bn96 s10 c1 g8 x1 e0 t0 ab");
    CHECK(to_config(sm90_algo(sm90_default)).find("swap_ab") == nullptr);
    std::vector<candidate> with_swap{{sm90_algo(swapped), 0, 0, -1},
                                     {sm90_algo(sm90_default), 0, 0, -1}};
    const ktune::tune::space ss = to_space(with_swap);
    CHECK(ss.axis_index("sm90_swap_ab"));
    for (const auto& cand : with_swap)
        CHECK(algo_at(ss, point_of(ss, cand.algo)) == cand.algo);
    // A space with split candidates has the axis; each candidate stands at its own point.
    std::vector<candidate> cands{{sm90_algo(split), 0, 0, -1}, {sm90_algo(sm90_default), 0, 0, -1}};
    const ktune::tune::space s = to_space(cands);
    CHECK(s.axis_index("sm90_splits"));
    for (const auto& cand : cands)
        CHECK(algo_at(s, point_of(s, cand.algo)) == cand.algo);
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
    REQUIRE(en.heuristic.size() == plain.heuristic.size() + o.sm90_picks);
    for (std::size_t i = 0; i < plain.heuristic.size(); ++i)
        CHECK(en.heuristic[i] == plain.heuristic[i]);
    for (std::size_t i = 0; i < o.sm90_picks; ++i) {
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
    // "sm90_cluster_b" only where a candidate's cluster shares B, as "sm90_splits".
    CHECK(s.axis_index("sm90_cluster_b"));
    std::vector<candidate> shares_a = en.all;
    std::erase_if(shares_a, [](const candidate& c) { return c.algo.sm90.cluster_b != 0; });
    const ktune::tune::space without = to_space(shares_a);
    CHECK(without.axis_index("sm90_bn"));
    CHECK_FALSE(without.axis_index("sm90_cluster_b"));
    for (const auto& c : shares_a)
        CHECK(algo_at(without, point_of(without, c.algo)) == c.algo);
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
    // Told that B is weights (docs/perf/gemm.md#early-weights), the tune and its report say so;
    // without it the report has no such key.
    CHECK(to_json(pinned, 800, "measured").find("b_operand") == std::string::npos);
    o.own_kernels = true;
    o.b_is = b_operand::weights;
    const tune_result w = tune_loop(lt, p, o, hooks, h100);
    CHECK(w.b_is == b_operand::weights);
    CHECK(to_json(w, 800, "measured").find("\"b_operand\": \"weights\"") != std::string::npos);
    CHECK(format_text(w, 800, "measured").find("B is weights") != std::string::npos);
}

TEST_CASE("faults planted in a share of the template's configs, and the report counts them") {
    const problem p = parse_problem("4096x4096x4096", "bf16");
    const auto configs = sm90_configs(p, h100);
    std::size_t planted = 0, skip = 0;
    for (const auto& c : configs) {
        CHECK(sm90_fault_for(c, 0.0, 7) == sm90_fault::none);
        CHECK(sm90_fault_for(c, 1.0, 7) != sm90_fault::none);
        const sm90_fault f = sm90_fault_for(c, 0.3, 7);
        CHECK(sm90_fault_for(c, 0.3, 7) == f); // the same config, the same seed: the same fault
        planted += f != sm90_fault::none ? 1 : 0;
        skip += f == sm90_fault::skip_slab ? 1 : 0;
    }
    const double share = double(planted) / double(configs.size());
    CHECK(share > 0.27);
    CHECK(share < 0.33);
    CHECK(skip > planted / 3); // both kinds
    CHECK(skip < 2 * planted / 3);
    CHECK(std::string(to_string(sm90_fault::skip_slab)) == "skip_slab");
    CHECK(std::string(to_string(sm90_fault::drop_tile)) == "drop_tile");

    // The report: the planted ones, how many the check rejected, how many passed it.
    tune_result r;
    r.prob = p;
    r.default_pick.algo = algo_config{};
    r.default_pick.median_us = 100;
    r.winner = r.default_pick;
    candidate_result caught;
    caught.algo = sm90_algo(configs[0]);
    caught.status = "wrong_result";
    caught.message = "512 of 516 checked elements outside tolerance";
    caught.injected_fault = "skip_slab";
    candidate_result missed = caught;
    missed.status = "ok";
    missed.median_us = 90;
    missed.injected_fault = "drop_tile";
    r.evaluated = {r.default_pick, caught, missed};
    const std::string text = format_text(r, 0, "");
    INFO(text);
    CHECK(text.find("injected faults  2 planted in template candidates, 1 rejected by the check, "
                    "1 passed it") != std::string::npos);
    const std::string json = to_json(r, 0, "");
    CHECK(json.find("\"injected_fault\": \"skip_slab\"") != std::string::npos);
    CHECK(json.find("\"injected_fault\": \"drop_tile\"") != std::string::npos);
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

    // A decode winner whose cluster shares B ("cluster_b":1) or that swaps A and B
    // ("swap_ab":1): the key in the entry, and read back so.
    const auto decode_entry = [&](const char* shape, const sm90_config& winner,
                                  const char* golden) {
        tune_result decoded;
        decoded.prob = parse_problem(shape, "bf16");
        decoded.cublaslt_version = lt.lib_version;
        decoded.winner.algo = sm90_algo(winner);
        decoded.winner.median_us = 14.8;
        const std::vector entry{to_cache_entry(decoded, env, {})};
        ktune_test::check_golden(ktune::cache::format_cache(entry), golden);
        const resolved r = resolve(lt, entry, decoded.prob, env, ws, h100);
        CHECK(r.source == algo_source::cache);
        CHECK(r.algo == decoded.winner.algo);
        return entry;
    };
    decode_entry("32x4096x4096", {16, 16, 1, 8, 2, 0, 0, 1, 1},
                 "gemm/cache_entry_sm90_cluster_b.json");
    const auto swap_entry = decode_entry("64x11008x4096", {88, 10, 1, 8, 1, 0, 0, 1, 0, 1},
                                         "gemm/cache_entry_sm90_swap_ab.json");
    // M over the swapped tile's rows: its rules refuse the problem, the heuristic answers.
    const problem wide = parse_problem("65x11008x4096", "bf16");
    CHECK(resolve(lt, swap_entry, wide, env, ws, h100).source == algo_source::heuristic);
}

TEST_CASE("fp8 at M % 16 != 0 runs on the template alone: its first pick is default and answer") {
    fake_lt lt = two_algorithms();
    const problem p = parse_problem("1x4096x4096", "fp8", "tn"); // accepted: decode at batch 1
    const sm90_config first = sm90_ranked(p, h100).front();
    enumerate_options eo;
    eo.sm90 = h100;
    const enumeration en = enumerate(lt, p, eo);
    CHECK(lt.asked.empty()); // cuBLASLt is not asked: it runs fp8 only with M % 16 == 0
    CHECK(lt.checked.empty());
    REQUIRE_FALSE(en.all.empty());
    for (const candidate& c : en.all)
        CHECK(c.algo.provider == provider::ktune_sm90);
    CHECK(en.heuristic.front().algo == sm90_algo(first));

    // The tune's default is what a cache miss runs: the prior's first pick, never cuBLAS's.
    tune_options o;
    o.budget = 0;
    o.max_seconds = 0;
    bool asked_cublas = false;
    const tune_hooks hooks{[&](const algo_config& a) { return timed(a.sm90 == first ? 30 : 20); },
                           [&] {
                               asked_cublas = true;
                               return timed(10);
                           }};
    const tune_result r = tune_loop(lt, p, o, hooks, h100);
    CHECK_FALSE(asked_cublas);
    CHECK(r.default_pick.algo == sm90_algo(first));
    CHECK(r.replaces_default); // the second pick (20 us) beat it twice
    CHECK(r.winner.algo.provider == provider::ktune_sm90);
    CHECK(r.speedup == Approx(30.0 / 20.0));

    // A cache miss at run time: the template's first pick where it runs, else nothing.
    const ktune::cache::environment env{"sm_90", 13000, 580, ktune::cache::current_protocol};
    const std::size_t ws = std::size_t{32} << 20;
    const resolved miss = resolve(lt, {}, p, env, ws, h100);
    CHECK(miss.found);
    CHECK(miss.source == algo_source::heuristic);
    CHECK(miss.algo == sm90_algo(first));
    CHECK_FALSE(resolve(lt, {}, p, env, ws).found);
    CHECK(lt.asked.empty());

    // Without an sm_90 device nothing runs it: a clear error, not cuBLASLt's.
    try {
        (void)tune_loop(lt, p, o, hooks, std::nullopt);
        FAIL("expected an error");
    } catch (const ktune::error& e) {
        CHECK(e.kind() == ktune::error_kind::unsupported);
        CHECK(std::string(e.what()).find("M a multiple of 16") != std::string::npos);
    }
    // K must still be a multiple of 16 (A's and B's rows).
    CHECK_THROWS_AS(parse_problem("1x4096x4100", "fp8", "tn"), ktune::error);
}
