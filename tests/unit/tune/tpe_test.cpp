#include "catch.hpp"

#include "ktune/tune/searcher.hpp"
#include "tune/strategy_tpe.hpp"

#include <vector>

using namespace ktune::tune;
using ktune::tune::detail::farthest;
using ktune::tune::detail::propose_tpe;

namespace {

space tpe_space() {
    space s;
    s.add(axis::pow2("bx", 8, 256))
        .add(axis::list("tile", std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7, 8}))
        .add(axis::enumeration("mode", {"a", "b", "c", "d"}));
    return s;
}

} // namespace

TEST_CASE("TPE proposes the values that the fast configs share") {
    const space s = tpe_space();
    // Fast configs all have mode "c" (index 2) and tile 6 (index 5); slow ones anything else.
    std::vector<std::pair<double, point>> ranked;
    rng r(5);
    for (int i = 0; i < 4; ++i)
        ranked.push_back({1.0 + 0.01 * i, point{static_cast<std::uint32_t>(r.below(6)), 5, 2}});
    for (int i = 0; i < 30; ++i) {
        point p = s.sample(r);
        if (p[2] == 2) p[2] = 0;
        ranked.push_back({5.0 + i, p});
    }
    const std::vector<point> failed{{0, 0, 3}, {1, 0, 3}};
    int mode_hits = 0, tile_hits = 0, proposals = 0;
    for (std::uint64_t seed = 0; seed < 40; ++seed) {
        rng rs(seed);
        const auto p = propose_tpe(s, ranked, failed, rs, [](const point&) { return false; });
        REQUIRE(p);
        CHECK(s.is_valid(*p));
        ++proposals;
        mode_hits += (*p)[2] == 2;
        tile_hits += (*p)[1] >= 4 && (*p)[1] <= 6;
    }
    // Uniform sampling would hit mode c a quarter of the time, tiles 5–7 three eighths.
    CHECK(mode_hits >= proposals * 9 / 10);
    CHECK(tile_hits >= proposals * 9 / 10);
    // Same seed, same proposal; a proposal the caller has taken is never returned.
    rng r1(3), r2(3);
    const auto any = [](const point&) { return false; };
    CHECK(propose_tpe(s, ranked, failed, r1, any) == propose_tpe(s, ranked, failed, r2, any));
    rng r3(3);
    const auto first = *propose_tpe(s, ranked, failed, r3, any);
    for (std::uint64_t seed = 0; seed < 10; ++seed) {
        rng rs(seed);
        const auto p =
            propose_tpe(s, ranked, failed, rs, [&](const point& q) { return q == first; });
        CHECK((!p || *p != first));
    }
    // Too few observations to split into good and rest: nothing.
    rng r4(1);
    CHECK_FALSE(propose_tpe(s, {ranked[0]}, {}, r4, any));
}

TEST_CASE("space-filling pick: the candidate farthest from what was measured") {
    const space s = tpe_space();
    const std::vector<point> measured{{0, 0, 0}, {1, 1, 0}};
    const std::vector<point> cand{{0, 1, 0}, {5, 7, 3}, {2, 2, 0}, {4, 7, 0}};
    CHECK(farthest(s, cand, measured) == 1); // far on both ordered axes and another mode
    CHECK(farthest(s, {{0, 0, 1}, {0, 0, 0}}, measured) == 0); // an enum change counts 1
}
