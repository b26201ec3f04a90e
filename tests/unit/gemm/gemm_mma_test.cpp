// ktune's mma.sync GEMM as a provider beside cuBLASLt (docs/perf/gemm.md#mma-fallback), apart
// from the GPU: its config round trip, its candidates in the enumeration (the prior's picks
// measured beside the heuristic's), the space's axes beside the template's, a config winning a
// tune, its report and cache entry, and the run time accepting the entry only where it runs.
#include "catch.hpp"
#include "fake_lt.hpp"

#include "gemm/mma.hpp"
#include "gemm/resolve.hpp"
#include "gemm/tune_loop.hpp"
#include "golden.hpp"
#include "ktune/cache/store.hpp"
#include "ktune/core/error.hpp"

#include <set>

using namespace gemm_test;

namespace {

const mma_device a100{80, 108, 166912};
const sm90_device h100{132, 232448};

algo_config mma_algo(const mma_config& c) {
    algo_config a;
    a.provider = provider::ktune_mma;
    a.mma = c;
    return a;
}

} // namespace

TEST_CASE("an mma config survives the config round trip and says what it is") {
    const algo_config a = mma_algo({128, 64, 32, 2, 2, 4});
    const ktune::config c = to_config(a);
    CHECK(c.get<std::string>("provider") == "ktune_mma");
    CHECK(c.get<std::int64_t>("bm") == 128);
    CHECK(c.get<std::int64_t>("warps_n") == 2);
    CHECK(c.find("algo") == nullptr);
    CHECK(c.find("consumers") == nullptr); // nor the template's knobs
    CHECK(algo_from_config(c) == a);
    CHECK(describe(a) == "ktune mma bm128 bn64 bk32 w2x2 s4");
    CHECK(to_string(provider::ktune_mma) == "ktune_mma");
    ktune::config bad = c;
    bad.set("bk", std::string("wide"));
    CHECK_THROWS_AS(algo_from_config(bad), ktune::error);
}

TEST_CASE("an sm_80 device adds the mma form: the prior's picks after the heuristic's, one space "
          "with the template") {
    fake_lt lt = two_algorithms();
    const problem p = parse_problem("2048x4096x4096", "bf16");
    enumerate_options o;
    const enumeration plain = enumerate(lt, p, o);
    o.mma = a100;
    const enumeration en = enumerate(lt, p, o);
    const auto ranked = mma_ranked(p, a100);
    CHECK(en.stats.mma == ranked.size());
    CHECK(en.all.size() == plain.all.size() + ranked.size());
    REQUIRE(en.heuristic.size() == plain.heuristic.size() + 2);
    for (std::size_t i = 0; i < 2; ++i) {
        const candidate& c = en.heuristic[plain.heuristic.size() + i];
        CHECK(c.algo == mma_algo(ranked[i]));
        CHECK(en.all[plain.heuristic.size() + i] == c);
    }
    CHECK(enumerate(lt, parse_problem("2048x4096x4096", "fp8"), o).stats.mma == 0);

    // Both of ktune's kernels and cuBLASLt in one space: "kernel" 0, 1, 2, each candidate at its
    // own point and back.
    o.sm90 = h100;
    const enumeration both = enumerate(lt, p, o);
    const ktune::tune::space s = to_space(both.all);
    CHECK(s.axis_index("kernel"));
    CHECK(s.axis_index("sm90_bn"));
    CHECK(s.axis_index("mma_bm"));
    CHECK(s.valid_count() == both.all.size());
    std::set<std::uint64_t> codes;
    for (const auto& c : both.all) {
        const auto pt = point_of(s, c.algo);
        CHECK(algo_at(s, pt) == c.algo);
        codes.insert(s.code(pt));
    }
    CHECK(codes.size() == both.all.size());
    // The mma form alone: no template axes.
    o.sm90.reset();
    const ktune::tune::space mma_only = to_space(enumerate(lt, p, o).all);
    CHECK(mma_only.axis_index("mma_stages"));
    CHECK_FALSE(mma_only.axis_index("sm90_bn"));
}

TEST_CASE("an mma config can win a tune; its report and cache entry say so") {
    fake_lt lt = two_algorithms();
    const problem p = parse_problem("2048x4096x4096", "bf16", "tn", "gelu_bias");
    const mma_config first = mma_ranked(p, a100).front();
    tune_options o;
    o.budget = 0;
    o.max_seconds = 0;
    const tune_hooks hooks{[&](const algo_config& a) {
                               if (a.provider != provider::ktune_mma) return timed(100);
                               return timed(a.mma == first ? 90 : 130);
                           },
                           [] { return timed(100); }};
    const tune_result r = tune_loop(lt, p, o, hooks, std::nullopt, a100);
    CHECK(r.winner.algo == mma_algo(first));
    CHECK(r.replaces_default);
    CHECK(r.space.mma > 0);
    CHECK(r.space.sm90 == 0);
    tune_result pinned = r;
    pinned.tune_seconds = 0;
    pinned.space.seconds = 0;
    ktune_test::check_golden(to_json(pinned, 300, "measured") + "\n", "gemm/tune_report_mma.json");
    const std::string text = format_text(pinned, 300, "measured");
    CHECK(text.find("configs of ktune's mma.sync GEMM") != std::string::npos);
    CHECK(text.find("best measured 90.00 us (ktune mma bm") != std::string::npos);
    CHECK(text.find("ktune template") == std::string::npos); // not measured here

    const ktune::cache::environment env{"sm_80", 13000, 580, ktune::cache::current_protocol};
    const std::vector entries{to_cache_entry(r, env, {})};
    ktune_test::check_golden(ktune::cache::format_cache(entries), "gemm/cache_entry_mma.json");
    const std::size_t ws = std::size_t{32} << 20;
    const resolved here = resolve(lt, entries, p, env, ws, std::nullopt, a100);
    CHECK(here.source == algo_source::cache);
    CHECK(here.algo == r.winner.algo);
    // No sm_80 device, or one with too little shared memory for the ring: the heuristic.
    CHECK(resolve(lt, entries, p, env, ws).source == algo_source::heuristic);
    CHECK(resolve(lt, entries, p, env, ws, std::nullopt, mma_device{80, 108, 1024}).source ==
          algo_source::heuristic);
}
