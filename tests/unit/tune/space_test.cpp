#include "catch.hpp"

#include "ktune/core/error.hpp"
#include "ktune/tune/space.hpp"

#include <cmath>
#include <map>
#include <set>

using namespace ktune::tune;

namespace {

space small_space() {
    space s;
    s.add(axis::pow2("bx", 1, 64))
        .add(axis::pow2("by", 1, 64))
        .add(axis::list("tile", std::vector<std::int64_t>{1, 2, 3, 4, 6, 8}))
        .add(axis::boolean("shmem"))
        .add(axis::enumeration("layout", {"row", "col"}));
    s.add(product_at_most({"bx", "by"}, 256, "threads per block <= 256"))
        .add(product_at_least({"bx", "by"}, 32, "at least one warp"))
        .add(divides_constant("tile", 12))
        .add(resource_at_most(
            {"bx", "tile", "shmem"},
            [](const param_view& v) { return v.b(2) ? 4.0 * v.d(0) * v.d(1) : 0; }, 512,
            "shared memory <= 512 B"));
    return s;
}

// Brute force over the Cartesian product: the reference the counting must match.
std::vector<point> brute_force(const space& s) {
    std::vector<point> v;
    for (std::uint64_t c = 0; c < s.cartesian_size(); ++c)
        if (s.is_valid(s.decode(c))) v.push_back(s.decode(c));
    return v;
}

} // namespace

TEST_CASE("constraints prune configs; counting matches brute force") {
    const space s = small_space();
    CHECK(s.cartesian_size() == 7 * 7 * 6 * 2 * 2);
    const auto all = brute_force(s);
    REQUIRE(!all.empty());
    CHECK(s.valid_count() == all.size());
    // Enumeration visits exactly the valid set, once each; unrank agrees with it.
    std::set<std::uint64_t> seen;
    std::uint64_t r = 0;
    s.for_each_valid([&](const point& p) {
        CHECK(s.is_valid(p));
        CHECK(s.unrank(r++) == p);
        seen.insert(s.code(p));
        return true;
    });
    CHECK(seen.size() == all.size());
    CHECK_THROWS_AS(s.unrank(all.size()), ktune::error);

    // Named violations.
    const point bad = s.from_config(ktune::config{{"bx", std::int64_t{64}},
                                                  {"by", std::int64_t{64}},
                                                  {"tile", std::int64_t{1}},
                                                  {"shmem", false},
                                                  {"layout", std::string("row")}});
    CHECK_FALSE(s.is_valid(bad));
    CHECK(s.why_invalid(bad) == "threads per block <= 256");
    const point tile8 = s.from_config(ktune::config{{"bx", std::int64_t{16}},
                                                    {"by", std::int64_t{2}},
                                                    {"tile", std::int64_t{8}},
                                                    {"shmem", false},
                                                    {"layout", std::string("col")}});
    CHECK(s.why_invalid(tile8) == "tile divides 12");
}

TEST_CASE("uniform sampling of valid configs passes a chi-square test") {
    const space s = small_space();
    const std::uint64_t n = s.valid_count();
    std::map<std::uint64_t, int> hits;
    rng r(12345);
    const int per_cell = 100;
    const auto draws = static_cast<int>(n) * per_cell;
    for (int i = 0; i < draws; ++i) {
        const point p = s.sample(r);
        REQUIRE(s.is_valid(p));
        ++hits[s.code(p)];
    }
    CHECK(hits.size() == n); // every valid config drawn
    double chi2 = 0;
    for (const auto& [c, k] : hits)
        chi2 += (k - per_cell) * double(k - per_cell) / per_cell;
    // Wilson–Hilferty 99.9 % quantile of chi-square with n-1 degrees of freedom.
    const double df = double(n - 1);
    const double z = 3.09;
    const double crit = df * std::pow(1 - 2 / (9 * df) + z * std::sqrt(2 / (9 * df)), 3);
    INFO("chi2 = " << chi2 << ", critical = " << crit << ", cells = " << n);
    CHECK(chi2 < crit);
    // The statistic is sensitive: naive per-axis sampling (uniform value per axis, then
    // reject) favours nothing, but sampling each axis uniformly among the values that can
    // still complete a valid config over-weights sparse branches; it fails this test.
    std::map<std::uint64_t, int> skewed;
    const auto valid = brute_force(s);
    for (int i = 0; i < draws; ++i) {
        point p(s.axes().size());
        for (std::size_t a = 0; a < p.size(); ++a) {
            std::vector<std::uint32_t> ok;
            for (std::uint32_t v = 0; v < s.axes()[a].values.size(); ++v) {
                p[a] = v;
                bool any = false;
                for (const auto& q : valid) {
                    bool prefix = true;
                    for (std::size_t b = 0; b <= a; ++b)
                        prefix = prefix && q[b] == p[b];
                    any = any || prefix;
                }
                if (any) ok.push_back(v);
            }
            p[a] = ok[r.below(ok.size())];
        }
        ++skewed[s.code(p)];
        if (i > 2000) break; // enough to show the skew
    }
    double chi2_skewed = 0;
    const double e = 2002.0 / double(n);
    for (const auto& [c, k] : skewed)
        chi2_skewed += (k - e) * (k - e) / e;
    chi2_skewed += (double(n) - double(skewed.size())) * e;
    CHECK(chi2_skewed > crit);
}

TEST_CASE("sampling is deterministic per seed") {
    const space s = small_space();
    rng a(7), b(7), c(8);
    std::vector<point> x, y, z;
    for (int i = 0; i < 50; ++i) {
        x.push_back(s.sample(a));
        y.push_back(s.sample(b));
        z.push_back(s.sample(c));
    }
    CHECK(x == y);
    CHECK(x != z);
}

TEST_CASE("neighbours, codes, configs and hashing") {
    const space s = small_space();
    rng r(3);
    const point p = s.sample(r);
    CHECK(s.decode(s.code(p)) == p);
    CHECK(s.from_config(s.to_config(p)) == p);
    for (auto kind : {neighbourhood::adjacent, neighbourhood::hamming})
        for (const auto& q : s.neighbours(p, kind)) {
            CHECK(s.is_valid(q));
            int diff = 0;
            for (std::size_t a = 0; a < p.size(); ++a)
                diff += p[a] != q[a];
            CHECK(diff == 1);
        }
    CHECK(s.neighbours(p, neighbourhood::adjacent).size() <=
          s.neighbours(p, neighbourhood::hamming).size());
    // FNV-1a of "a=1,b=x": a fixed value, on every platform and run.
    CHECK(config_hash(ktune::config{{"a", std::int64_t{1}}, {"b", std::string("x")}}) ==
          0x16abff1529e2cb19ull);
    CHECK_THROWS_AS(s.from_config(ktune::config{{"bx", std::int64_t{3}}}), ktune::error);
    space t = s;
    t.add(axis::boolean("extra"));
    CHECK(!(t == s));
    CHECK(s == small_space());
    CHECK_THROWS_AS(t.add(axis::boolean("extra")), ktune::error);
    CHECK_THROWS_AS(t.add(divides("nope", "bx")), ktune::error);
}

TEST_CASE("a 10^9-point constrained space counts and samples without enumerating") {
    space s;
    s.add(axis::pow2("bx", 1, 1024)).add(axis::pow2("by", 1, 1024)).add(axis::pow2("bz", 1, 64));
    s.add(axis::list("tx", std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
    s.add(axis::list("ty", std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
    s.add(axis::pow2("vec", 1, 16)).add(axis::pow2("split", 1, 64)).add(axis::boolean("smem"));
    s.add(axis::list("stages", std::vector<std::int64_t>{1, 2, 3, 4, 5}));
    s.add(axis::pow2("unroll", 1, 32))
        .add(axis::list("wpt", std::vector<std::int64_t>{1, 2, 3, 4}));
    s.add(product_at_most({"bx", "by", "bz"}, 1024, "threads"))
        .add(divides_constant("tx", 4096))
        .add(divides_constant("ty", 4096))
        .add(divides("vec", "tx"))
        .add(product_at_most({"split", "stages"}, 64, "split x stages"))
        .add(divides("wpt", "ty"))
        .add(product_at_most({"unroll", "wpt", "tx"}, 64, "registers"));
    CHECK(s.cartesian_size() > 1'000'000'000ull);
    const auto n = s.valid_count();
    CHECK(n > 0);
    CHECK(n < s.cartesian_size() / 10); // validity is rare: rejection would waste most draws
    rng r(1);
    for (int i = 0; i < 2000; ++i)
        REQUIRE(s.is_valid(s.sample(r)));
}

TEST_CASE("an impossible space says so") {
    space s;
    s.add(axis::pow2("b", 1, 8)).add(product_at_least({"b"}, 1000, "too big"));
    CHECK(s.valid_count() == 0);
    rng r(1);
    CHECK_THROWS_AS(s.sample(r), ktune::error);
}
