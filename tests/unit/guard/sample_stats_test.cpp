// Statistics of timing samples (include/ktune/measure/sample_stats.hpp).
#include "catch.hpp"

#include "ktune/core/error.hpp"
#include "ktune/measure/sample_stats.hpp"

#include <cmath>
#include <limits>
#include <vector>

using namespace ktune::measure;

TEST_CASE("quantiles interpolate linearly between order statistics (type 7)") {
    // numpy.quantile([1, 2, 3, 4], [0.25, 0.5, 0.75]) == [1.75, 2.5, 3.25]
    const std::vector<double> v{1, 2, 3, 4};
    CHECK(quantile_sorted(v, 0.25) == Approx(1.75));
    CHECK(quantile_sorted(v, 0.5) == Approx(2.5));
    CHECK(quantile_sorted(v, 0.75) == Approx(3.25));
    CHECK(quantile_sorted(v, 0.0) == 1);
    CHECK(quantile_sorted(v, 1.0) == 4);
    CHECK_THROWS_AS(quantile_sorted(v, 1.5), ktune::error);
    CHECK_THROWS_AS(quantile_sorted(std::vector<double>{}, 0.5), ktune::error);
}

TEST_CASE("median and MAD of unsorted samples") {
    const std::vector<double> odd{5, 1, 4, 2, 3};
    CHECK(median(odd) == 3);
    const std::vector<double> even{10, 1, 3, 2};
    CHECK(median(even) == Approx(2.5));
    // |x - 3| = {2, 2, 1, 1, 0} -> median 1
    CHECK(mad(odd) == 1);
    CHECK(odd.front() == 5); // input untouched
}

TEST_CASE("median CI by order statistics has binomial coverage") {
    std::vector<double> v(30);
    for (std::size_t i = 0; i < v.size(); ++i)
        v[i] = static_cast<double>(i + 1);
    // n = 30, 95 %: x_(10) .. x_(21); coverage 1 - 2 P(Binomial(30, 1/2) <= 9) = 0.95723
    // (scipy.stats.binom.cdf(9, 30, 0.5) = 0.0213863).
    const auto ci = median_ci_sorted(v, 0.95);
    CHECK(ci.lo_rank == 9);
    CHECK(ci.hi_rank == 20);
    CHECK(ci.lo == 10);
    CHECK(ci.hi == 21);
    CHECK(ci.coverage == Approx(1 - 2 * 0.0213863).epsilon(1e-5));

    // Five samples cannot reach 95 %: the whole range, with its coverage 1 - 2^-4.
    const std::vector<double> five{1, 2, 3, 4, 5};
    const auto wide = median_ci_sorted(five, 0.95);
    CHECK(wide.lo == 1);
    CHECK(wide.hi == 5);
    CHECK(wide.coverage == Approx(0.9375));

    // Large n stays finite (2^-n underflows in linear space).
    std::vector<double> big(5000);
    for (std::size_t i = 0; i < big.size(); ++i)
        big[i] = static_cast<double>(i);
    const auto bci = median_ci_sorted(big, 0.99);
    CHECK(bci.coverage >= 0.99);
    CHECK(bci.lo < 2500);
    CHECK(bci.hi > 2500);
    CHECK(bci.hi - bci.lo < 200); // about 2 * 2.576 * sqrt(5000) / 2 = 182 ranks
}

TEST_CASE("summarize fills every field and rejects non-finite samples") {
    const std::vector<double> v{4, 1, 3, 2};
    const auto s = summarize(v);
    CHECK(s.n == 4);
    CHECK(s.min == 1);
    CHECK(s.max == 4);
    CHECK(s.median == Approx(2.5));
    CHECK(s.iqr == Approx(1.5));
    CHECK(s.mean == Approx(2.5));
    CHECK(s.mad == Approx(1.0));
    CHECK(s.median_ci_rel_halfwidth() == Approx(1.5 / 2.5));
    CHECK(summarize(v) == s);
    const std::vector<double> bad{1, std::numeric_limits<double>::quiet_NaN()};
    CHECK_THROWS_AS(summarize(bad), ktune::error);
    CHECK_THROWS_AS(summarize(std::vector<double>{}), ktune::error);
}
