// GEMM winners in the cache: stored as attributes under the cuBLASLt version, re-checked at
// load, another version's entry used only when AlgoCheck still accepts it, else the heuristic.
#include "catch.hpp"
#include "fake_lt.hpp"

#include "gemm/resolve.hpp"
#include "ktune/cache/store.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace gemm_test;

namespace {

ktune::cache::environment env() {
    return {"sm_90", 13000, 580, ktune::cache::current_protocol};
}

ktune::cache::entry entry_for(const problem& p, std::size_t version, const algo_config& a,
                              const char* date) {
    tune_result r;
    r.prob = p;
    r.cublaslt_version = version;
    r.winner.algo = a;
    r.winner.median_us = 10;
    r.winner.ci_lo_us = 9.5;
    r.winner.ci_hi_us = 10.5;
    r.winner.samples = 32;
    ktune::cache::provenance o;
    o.gpu_name = "NVIDIA H100 80GB HBM3";
    o.date = date;
    o.ktune_version = "0.1.0";
    return to_cache_entry(r, env(), o);
}

} // namespace

TEST_CASE("a GEMM cache entry holds the attributes under the cuBLASLt version") {
    const problem p = parse_problem("16x4096x4096", "bf16", "tn", "bias");
    const algo_config a{66, 20, 18, 0, 2, 1, 0, 1, 0};
    const auto e = entry_for(p, 130400, a, "2026-11-25T19:00:00Z");
    CHECK(e.key.op == "gemm");
    CHECK(e.key.op_version == "cublasLt130400");
    CHECK(e.key.dtype == "bf16");
    CHECK(e.key.bucket == std::vector<std::int64_t>{16, 4096, 4096, 2, 1});
    CHECK(algo_from_config(e.cfg) == a);
    // The stored form is pinned (docs/formats.md#ktunecache--gemm-entries).
    const std::string text = ktune::cache::format_cache(std::vector<ktune::cache::entry>{e});
    const char* path = KTUNE_TEST_DATA_DIR "/gemm/cache_entry.json";
    if (std::getenv("KTUNE_UPDATE_GOLDEN")) std::ofstream(path, std::ios::binary) << text;
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in);
    std::stringstream golden;
    golden << in.rdbuf();
    CHECK(text == golden.str());
    CHECK(ktune::cache::parse_cache(golden.str(), "cache_entry.json").front() == e);
}

TEST_CASE("resolve: same version, other version re-checked, else the heuristic") {
    fake_lt lt = two_algorithms();
    const problem p = parse_problem("16x4096x4096", "bf16");
    const algo_config tuned{10, 18, 8, 0, 0, 1, 0, 1, 0};
    const std::size_t ws = std::size_t{32} << 20;

    SECTION("an entry of this version, still accepted") {
        const std::vector entries{entry_for(p, lt.lib_version, tuned, "2026-11-25T19:00:00Z")};
        const resolved r = resolve(lt, entries, p, env(), ws);
        CHECK(r.source == algo_source::cache);
        CHECK(r.algo == tuned);
    }
    SECTION("the library changed: the old entry is re-checked and kept when accepted") {
        const std::vector entries{entry_for(p, 120900, tuned, "2026-11-25T19:00:00Z")};
        const resolved r = resolve(lt, entries, p, env(), ws);
        CHECK(r.source == algo_source::revalidated);
        CHECK(r.algo == tuned);
    }
    SECTION("the library changed and rejects the old algorithm: the heuristic answers") {
        const std::vector entries{entry_for(p, 120900, tuned, "2026-11-25T19:00:00Z")};
        lt.rule = [](const algo_config& a) {
            return check_result{a.tile != 18, 0, 1.0f, a.tile == 18 ? "NOT_SUPPORTED" : ""};
        };
        const resolved r = resolve(lt, entries, p, env(), ws);
        CHECK(r.source == algo_source::heuristic);
        CHECK(r.algo == lt.picks[0].algo);
    }
    SECTION("an entry of another problem is not used") {
        const std::vector entries{entry_for(parse_problem("32x4096x4096", "bf16"), lt.lib_version,
                                            tuned, "2026-11-25T19:00:00Z")};
        CHECK(resolve(lt, entries, p, env(), ws).source == algo_source::heuristic);
    }
    SECTION("an entry needing more workspace than the caller has is not used") {
        const algo_config split{10, 18, 8, 0, 0, 8, 1, 0, 0}; // 7 MiB
        const std::vector entries{entry_for(p, lt.lib_version, split, "2026-11-25T19:00:00Z")};
        CHECK(resolve(lt, entries, p, env(), std::size_t{4} << 20).source ==
              algo_source::heuristic);
    }
    SECTION("no entry and no heuristic answer: nothing found") {
        lt.picks.clear();
        CHECK_FALSE(resolve(lt, {}, p, env(), ws).found);
    }
}
