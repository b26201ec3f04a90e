// Mann–Whitney U, Hodges–Lehmann, bootstrap and Benjamini–Hochberg against reference values.
// Reference numbers come from scipy 1.17.1 (python3 -m venv v && v/bin/pip install scipy):
//   scipy.stats.mannwhitneyu(x, y, alternative="two-sided", method=..., use_continuity=True)
//   numpy.median(numpy.subtract.outer(y, x))             # Hodges–Lehmann
//   scipy.stats.false_discovery_control(p)               # Benjamini–Hochberg
#include "catch.hpp"

#include "ktune/core/error.hpp"
#include "ktune/guard/stats.hpp"

#include <cmath>
#include <vector>

using namespace ktune::guard;

namespace {
// a_i = 100 + ((37 i) mod 29) * 0.5 + (i mod 7) * 0.013, b_i = 101.37 + ((23 i) mod 31) * 0.5 +
// (i mod 5) * 0.0171, i = 0..29: two overlapping samples of 30 without ties.
std::vector<double> seq_a() {
    std::vector<double> v;
    for (int i = 0; i < 30; ++i)
        v.push_back(100 + ((i * 37) % 29) * 0.5 + (i % 7) * 0.013);
    return v;
}
std::vector<double> seq_b() {
    std::vector<double> v;
    for (int i = 0; i < 30; ++i)
        v.push_back(101.37 + ((i * 23) % 31) * 0.5 + (i % 5) * 0.0171);
    return v;
}
} // namespace

TEST_CASE("Mann-Whitney U matches scipy") {
    SECTION("exact, small, no ties") {
        const std::vector<double> x{1.1, 2.3, 3.5, 4.2, 5.9}, y{2.0, 6.1, 7.3, 8.8, 9.4, 10.2};
        const auto r = mann_whitney_u(x, y, mwu_method::exact);
        CHECK(r.u1 == 4.0);
        CHECK(r.exact);
        CHECK(r.p_value == Approx(0.05194805194805195).epsilon(1e-12));
        CHECK(mann_whitney_u(x, y) == r); // automatic picks exact here
    }
    SECTION("asymptotic with ties and continuity correction") {
        const std::vector<double> x{1, 2, 2, 3, 3, 3, 4, 5}, y{3, 4, 4, 5, 6, 6, 7, 8, 9};
        const auto r = mann_whitney_u(x, y);
        CHECK_FALSE(r.exact);
        CHECK(r.u1 == 7.0);
        CHECK(r.p_value == Approx(0.005580984136839312).epsilon(1e-9));
        CHECK_THROWS_AS(mann_whitney_u(x, y, mwu_method::exact), ktune::error);
    }
    SECTION("30 against 30, both methods") {
        const auto a = seq_a(), b = seq_b();
        const auto e = mann_whitney_u(a, b, mwu_method::exact);
        CHECK(e.u1 == 333.0);
        CHECK(e.p_value == Approx(0.08502668350647437).epsilon(1e-10));
        const auto n = mann_whitney_u(a, b, mwu_method::asymptotic);
        CHECK(n.p_value == Approx(0.08499969748696408).epsilon(1e-9));
        // Swapping the samples gives the complementary U and the same two-sided p.
        const auto s = mann_whitney_u(b, a, mwu_method::exact);
        CHECK(s.u1 == 900 - 333.0);
        CHECK(s.p_value == Approx(e.p_value));
    }
    SECTION("complete separation, 20 against 20, exact") {
        std::vector<double> x, y;
        for (int i = 0; i < 20; ++i) {
            x.push_back(i);
            y.push_back(i + 100.5);
        }
        CHECK(mann_whitney_u(x, y).p_value == Approx(1.4508889103849684e-11).epsilon(1e-9));
    }
    SECTION("identical constant samples carry no evidence") {
        const std::vector<double> c(40, 3.0);
        CHECK(mann_whitney_u(c, c).p_value == 1.0);
    }
    SECTION("bad input") {
        CHECK_THROWS_AS(mann_whitney_u(std::vector<double>{}, seq_a()), ktune::error);
        CHECK_THROWS_AS(mann_whitney_u(std::vector<double>{NAN}, seq_a()), ktune::error);
    }
}

TEST_CASE("Hodges-Lehmann shift is the median of pairwise differences") {
    const std::vector<double> x{1.1, 2.3, 3.5, 4.2, 5.9}, y{2.0, 6.1, 7.3, 8.8, 9.4, 10.2};
    CHECK(hodges_lehmann(x, y) == Approx(4.45));
    CHECK(hodges_lehmann(seq_a(), seq_b()) == Approx(2.331));
    CHECK(hodges_lehmann(y, x) == Approx(-4.45));
    // Beyond 4 M pairs the thinned estimate stays on the true shift.
    std::vector<double> big_x, big_y;
    for (int i = 0; i < 3000; ++i) {
        big_x.push_back(1000 + (i * 7919) % 3000 * 0.01);
        big_y.push_back(1002 + (i * 104729) % 3000 * 0.01);
    }
    CHECK(hodges_lehmann(big_x, big_y) == Approx(2.0).margin(0.02));
}

TEST_CASE("bootstrap CI of the relative shift is deterministic per seed and covers the truth") {
    const auto a = seq_a();
    auto b = a;
    for (auto& v : b)
        v *= 1.05;
    const auto r1 = relative_shift(a, b, {.confidence = 0.95, .resamples = 500, .seed = 42});
    const auto r2 = relative_shift(a, b, {.confidence = 0.95, .resamples = 500, .seed = 42});
    const auto r3 = relative_shift(a, b, {.confidence = 0.95, .resamples = 500, .seed = 43});
    CHECK(r1 == r2);
    CHECK_FALSE(r1 == r3);
    CHECK(r1.rel == Approx(0.05).margin(0.005));
    CHECK(r1.rel_lo < 0.05);
    CHECK(r1.rel_hi > 0.05);
    CHECK(r1.rel_lo < r1.rel);
    CHECK(r1.rel < r1.rel_hi);
    CHECK_THROWS_AS(relative_shift(a, b, {.confidence = 1.5}), ktune::error);
    const std::vector<double> zeros(10, 0.0);
    CHECK_THROWS_AS(relative_shift(zeros, zeros), ktune::error);
}

TEST_CASE("splitmix64 is fixed across platforms") {
    // Reference: splitmix64 seeded with 0 yields 0xE220A8397B1DCDAF first (Vigna's splitmix64.c).
    splitmix64 g(0);
    CHECK(g.next() == 0xE220A8397B1DCDAFULL);
    splitmix64 h(7);
    for (int i = 0; i < 1000; ++i) {
        CHECK(h.below(10) < 10);
        const double u = h.uniform();
        CHECK(u >= 0.0);
        CHECK(u < 1.0);
    }
}

TEST_CASE("Benjamini-Hochberg matches scipy and honours weights") {
    const std::vector<double> p{0.01, 0.04, 0.03, 0.005, 0.2, 0.8};
    const std::vector<double> expect{0.03, 0.06, 0.06, 0.03, 0.24, 0.8};
    const auto q = benjamini_hochberg(p);
    REQUIRE(q.size() == expect.size());
    for (std::size_t i = 0; i < q.size(); ++i)
        CHECK(q[i] == Approx(expect[i]));
    // Equal weights change nothing; a heavier key needs less evidence.
    const std::vector<double> even(6, 3.0);
    CHECK(benjamini_hochberg(p, even) == q);
    const std::vector<double> w{1, 1, 1, 1, 1, 10};
    const auto qw = benjamini_hochberg(std::vector<double>{0.5, 0.5, 0.5, 0.5, 0.5, 0.01}, w);
    // w = 10 * 6 / 15 = 4 after normalising: q = (0.01 / 4) * 6 / 1 = 0.015 (0.06 unweighted).
    CHECK(qw[5] == Approx(0.015));
    CHECK_THROWS_AS(benjamini_hochberg(p, std::vector<double>{1, 2}), ktune::error);
    CHECK_THROWS_AS(benjamini_hochberg(std::vector<double>{1.5}), ktune::error);
}
