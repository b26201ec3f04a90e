// The padded-K form (docs/perf/gemm.md#padded-k) apart from the GPU: which problems pad and to
// what, the form's candidates beside cuBLASLt's own (checked on the padded problem), its key in
// the config, the tune loop never taking it for the default, and the cache re-checking a padded
// entry on the padded problem.
#include "catch.hpp"
#include "fake_lt.hpp"

#include "gemm/pad.hpp"
#include "gemm/resolve.hpp"
#include "gemm/tune_loop.hpp"
#include "golden.hpp"
#include "ktune/cache/store.hpp"
#include "ktune/core/error.hpp"

#include <algorithm>

using namespace gemm_test;

TEST_CASE("K pads to a multiple of 8 for bf16 and fp16, never for fp8 or aligned K") {
    const problem odd = parse_problem("16x4096x4097", "bf16", "tn");
    CHECK(pads_k(odd));
    CHECK(padded(odd).k == 4104);
    CHECK(padded(odd).m == 16);
    CHECK(padded(odd).n == 4096);
    const padded_sizes sz = padded_bytes(odd);
    CHECK(sz.a == std::size_t{16} * 4104 * 2);
    CHECK(sz.b == std::size_t{4104} * 4096 * 2);
    CHECK(pads_k(parse_problem("16x4096x4093", "fp16", "nn")));
    CHECK_FALSE(pads_k(parse_problem("16x4096x4040", "bf16", "tn"))); // K % 8 == 0
    CHECK_FALSE(pads_k(parse_problem("16x4096x4112", "fp8", "tn")));
    CHECK(padded(parse_problem("16x4096x4040", "bf16", "tn")).k == 4040);
}

TEST_CASE("pad_k is in the config only when set, so older entries read as unpadded") {
    const algo_config own{66, 20, 18, 3, 5, 4, 4, 1, 2};
    CHECK(to_config(own).find("pad_k") == nullptr);
    algo_config pad = own;
    pad.pad_k = 1;
    CHECK(algo_from_config(to_config(pad)) == pad);
    CHECK(describe(pad).ends_with(" pad_k"));
    ktune::config c = to_config(pad);
    c.set("pad_k", std::int64_t{2});
    CHECK_THROWS_AS(algo_from_config(c), ktune::error);
}

TEST_CASE("an odd K enumerates the padded form beside cuBLASLt's own candidates") {
    fake_lt lt = two_algorithms();
    enumerate_options o;
    o.splitk = {1};
    o.clusters = {0};
    const problem p = parse_problem("64x4096x4097", "bf16");
    const enumeration en = enumerate(lt, p, o);
    // Own: the 2 heuristic picks, then algo 10's 2 tiles x 2 stages x 2 swizzles = 8 (algo 20
    // needs 16-byte alignment of A, lda 8194 B: dropped). Padded (K 4104): the 2 picks again,
    // then algo 10's 8 and algo 20's 2 customs, one of them the second pick: 11.
    CHECK(en.stats.rejected_alignment == 1);
    const auto padded_count = std::count_if(en.all.begin(), en.all.end(),
                                            [](const candidate& c) { return c.algo.pad_k == 1; });
    CHECK(padded_count == 11);
    CHECK(en.all.size() == 10 + 11);
    // The heuristic was asked for both problems; the padded picks follow cuBLAS's own.
    REQUIRE(lt.asked.size() == 2);
    CHECK(lt.asked[1].k == 4104);
    REQUIRE(en.heuristic.size() == 4);
    CHECK(en.heuristic[0].algo.pad_k == 0);
    CHECK(en.heuristic[0].heuristic_rank == 0);
    CHECK(en.heuristic[2].algo.pad_k == 1);
    CHECK(en.heuristic[2].heuristic_rank == 0);
    // The tune measures all's first heuristic.size() as the picks: the padded ones among them.
    for (std::size_t i = 0; i < en.heuristic.size(); ++i)
        CHECK(en.all[i].algo == en.heuristic[i].algo);
    // Every padded candidate was checked on the padded problem, every own one on p.
    for (const problem& q : lt.checked)
        CHECK((q.k == 4097 || q.k == 4104));
    CHECK(std::count_if(lt.checked.begin(), lt.checked.end(),
                        [](const problem& q) { return q.k == 4104; }) == 10);

    // The space tells the forms apart and maps every point back to its candidate.
    const ktune::tune::space s = to_space(en.all);
    CHECK(s.valid_count() == en.all.size());
    std::size_t padded_points = 0;
    s.for_each_valid([&](const ktune::tune::point& pt) {
        const algo_config a = algo_at(s, pt);
        CHECK(std::find(en.all.begin(), en.all.end(), candidate{a, 0, 0, -1}) != en.all.end());
        padded_points += a.pad_k;
        return true;
    });
    CHECK(padded_points == 11);
}

TEST_CASE("the tune keeps cuBLAS's own first pick as the default and lets a padded one win") {
    fake_lt lt = two_algorithms();
    const problem p = parse_problem("64x4096x4097", "bf16");
    tune_options o;
    o.strategy = "exhaustive";
    o.budget = 5000;
    o.max_seconds = 0;
    const tune_hooks hooks{[](const algo_config& a) { return timed(a.pad_k ? 30 : 100); },
                           [] { return timed(100); }};
    const tune_result r = tune_loop(lt, p, o, hooks);
    CHECK(r.default_pick.algo.pad_k == 0);
    CHECK(r.default_pick.algo == lt.picks[0].algo);
    CHECK(r.replaces_default);
    CHECK(r.winner.algo.pad_k == 1);
    CHECK(r.speedup == Approx(100.0 / 30.0));

    // The report names the form in each candidate's algo (docs/formats.md#ktunetunegemm); the
    // golden keeps the heuristic's picks of both forms (evaluated first), not all 2147.
    tune_result pinned = r;
    pinned.tune_seconds = 0;
    pinned.space.seconds = 0;
    REQUIRE(pinned.evaluated.size() > 4);
    pinned.evaluated.resize(4);
    CHECK(pinned.evaluated[1].algo.pad_k == 0);
    CHECK(pinned.evaluated[2].algo.pad_k == 1);
    ktune_test::check_golden(to_json(pinned, 800, "measured") + "\n",
                             "gemm/tune_report_padded.json");
    // The text says the pick pads, and to what.
    CHECK(format_text(pinned, 800, "measured").find("K padded 4097 -> 4104") != std::string::npos);
}

TEST_CASE("a padded cache entry is re-checked on the padded problem") {
    fake_lt lt = two_algorithms();
    const problem p = parse_problem("16x4096x4097", "bf16");
    tune_result t;
    t.prob = p;
    t.cublaslt_version = lt.lib_version;
    t.winner.algo = {20, 0, 0, 0, 0, 1, 0, 0, 1, 1};
    t.winner.median_us = 10;
    const ktune::cache::environment env{"sm_90", 13000, 580, ktune::cache::current_protocol};
    const std::vector entries{to_cache_entry(t, env, {})};
    // The stored form (docs/formats.md#ktunecache--gemm-entries): "pad_k":1 in the config.
    ktune_test::check_golden(ktune::cache::format_cache(entries), "gemm/cache_entry_padded.json");
    const resolved r = resolve(lt, entries, p, env, std::size_t{32} << 20);
    CHECK(r.source == algo_source::cache);
    CHECK(r.algo.pad_k == 1);
    REQUIRE(lt.checked.size() == 1);
    CHECK(lt.checked[0].k == 4104);
}
