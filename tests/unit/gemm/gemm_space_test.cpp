// The GEMM space: problem parsing, attributes <-> config, the enumeration's pruning, the space
// the strategies search (docs/perf/gemm.md#space).
#include "catch.hpp"
#include "fake_lt.hpp"

#include "gemm/enumerate.hpp"
#include "ktune/core/error.hpp"

using namespace gemm_test;

TEST_CASE("parse_problem reads MxNxK, dtype, layout and epilogue") {
    const problem p = parse_problem("16x4096x11008", "bf16", "nt", "gelu_bias");
    CHECK(p.m == 16);
    CHECK(p.n == 4096);
    CHECK(p.k == 11008);
    CHECK(p.type == dtype::bf16);
    CHECK(p.op == layout::nt);
    CHECK_FALSE(p.transa());
    CHECK(p.transb());
    CHECK(p.epi == epilogue::gelu_bias);
    CHECK(describe(p) == "16x4096x11008 bf16 nt gelu_bias");
    CHECK(parse_problem("128x128x128", "fp8").type == dtype::fp8_e4m3);
    CHECK(flops(p) == 2.0 * 16 * 4096 * 11008);
}

TEST_CASE("parse_problem says what to change") {
    const auto msg = [](auto f) {
        try {
            f();
        } catch (const ktune::error& e) {
            CHECK(e.kind() == ktune::error_kind::input);
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(msg([] { parse_problem("16x4096", "bf16"); }).find("MxNxK") != std::string::npos);
    CHECK(msg([] { parse_problem("16x0x4", "bf16"); }).find("N '0'") != std::string::npos);
    CHECK(msg([] { parse_problem("16x4x4", "fp32"); }).find("bf16, fp16, fp8") !=
          std::string::npos);
    CHECK(msg([] { parse_problem("16x4x4", "bf16", "xy"); }).find("nn, nt, tn, tt") !=
          std::string::npos);
    CHECK(msg([] { parse_problem("16x16x16", "fp8", "nn"); }).find("--layout tn") !=
          std::string::npos);
    CHECK(msg([] { parse_problem("16x16x20", "fp8", "tn"); }).find("K a multiple of 16") !=
          std::string::npos);
}

TEST_CASE("an algorithm's attributes survive the config round trip") {
    const algo_config a{66, 20, 18, 3, 5, 4, 4, 1, 2};
    CHECK(algo_from_config(to_config(a)) == a);
    ktune::config c = to_config(a);
    c.set("tile", std::int64_t{-1});
    CHECK_THROWS_AS(algo_from_config(c), ktune::error);
}

TEST_CASE("alignment is the largest power of two dividing the leading dimension in bytes") {
    CHECK(alignment_bytes(4096, 2) == 256);
    CHECK(alignment_bytes(4, 2) == 8);
    CHECK(alignment_bytes(7, 2) == 2);
    CHECK(alignment_bytes(7, 1) == 1);
}

TEST_CASE("the enumeration walks every capability combination and prunes") {
    fake_lt lt = two_algorithms();
    const problem p = parse_problem("64x4096x4096", "bf16");
    enumerate_options o;
    o.splitk = {1, 2, 4};
    o.clusters = {0, 2};
    o.max_workspace = std::size_t{2} << 20; // split 4 needs 3 MiB: pruned
    const enumeration en = enumerate(lt, p, o);
    // algo 10: 2 tiles x 2 stages x 2 clusters x 2 swizzles x (1 + 2 splits x 2 schemes) = 80;
    // algo 20: 1 x 1 x 2 clusters x 2 customs = 4.
    CHECK(en.stats.combinations == 84);
    CHECK(en.stats.checked == 84);
    CHECK(en.stats.rejected_workspace == 32); // algo 10 with splitk 4: 16 x 2 schemes
    CHECK(en.heuristic.size() == 2);
    CHECK(en.heuristic[0].heuristic_rank == 0);
    // The heuristic's picks lead; the enumeration adds the rest once (pick 2 is enumerated too).
    CHECK(en.all.size() == 2 + (80 - 32) + 4 - 1);
    CHECK(en.all[0].algo == lt.picks[0].algo);

    SECTION("an algorithm whose alignment the problem cannot meet is dropped whole") {
        const problem odd = parse_problem("64x4096x4100", "bf16"); // lda = 4100 x 2 B: 8-aligned
        const enumeration e2 = enumerate(lt, odd, o);
        CHECK(e2.stats.rejected_alignment == 1);
        // 80 of the problem's own; its padded form (K 4104: 16-aligned) keeps algo 20: 84 more.
        CHECK(e2.stats.combinations == 80 + 84);
    }
    SECTION("an epilogue the algorithm lacks drops it") {
        const problem b = parse_problem("64x4096x4096", "bf16", "tn", "gelu_bias");
        const enumeration e3 = enumerate(lt, b, o);
        CHECK(e3.stats.rejected_epilogue == 2);
        CHECK(e3.stats.combinations == 0);
    }
    SECTION("AlgoCheck's refusals are counted, not kept") {
        lt.rule = [](const algo_config& a) {
            return check_result{a.swizzle == 0, 0, 1.0f, a.swizzle ? "NOT_SUPPORTED" : ""};
        };
        const enumeration e4 = enumerate(lt, p, o);
        CHECK(e4.stats.rejected_check == 40);
        for (const auto& c : e4.all)
            CHECK(c.algo.swizzle == 0);
    }
    SECTION("without cluster launch only cluster auto is tried") {
        lt.clusters = false;
        CHECK(enumerate(lt, p, o).stats.combinations == 42);
    }
    SECTION("the check cap truncates every algorithm to its share") {
        o.max_checks = 10;
        const enumeration e5 = enumerate(lt, p, o);
        CHECK(e5.stats.truncated);
        CHECK(e5.stats.checked == 9); // 5 for algo 10, 4 (all) for algo 20
    }
}

TEST_CASE("the space holds exactly the candidates, and strategies can walk it") {
    fake_lt lt = two_algorithms();
    const enumeration en = enumerate(lt, parse_problem("64x4096x4096", "bf16"));
    const ktune::tune::space s = to_space(en.all);
    CHECK(s.restricted());
    CHECK(s.valid_count() == en.all.size());
    std::size_t seen = 0;
    s.for_each_valid([&](const ktune::tune::point& pt) {
        const algo_config a = algo_at(s, pt);
        CHECK(std::find(en.all.begin(), en.all.end(), candidate{a, 0, 0, -1}) != en.all.end());
        ++seen;
        return true;
    });
    CHECK(seen == en.all.size());
}
