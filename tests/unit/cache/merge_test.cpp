#include "cache_test_util.hpp"
#include "catch.hpp"

#include <random>

using namespace ktune::cache;
using cache_test::key;
using cache_test::make;

TEST_CASE("tie rule: separated intervals go to the faster, overlapping ones are a tie") {
    const auto fast = make(key({1}), 1, 10.0, 0.5);
    const auto slow = make(key({1}), 2, 12.0, 0.5);
    CHECK(better(fast, slow));
    CHECK_FALSE(better(slow, fast));
    // Overlapping: the lower upper bound wins even though its median is higher.
    const auto precise = make(key({1}), 3, 10.2, 0.1, 100); // [10.1, 10.3]
    const auto noisy = make(key({1}), 4, 10.0, 2.0, 5);     // [8.0, 12.0]
    CHECK(better(precise, noisy));
    // Identical measurements: a fixed order (config text), never "both" or "neither".
    const auto a = make(key({1}), 5, 10.0);
    const auto b = make(key({1}), 6, 10.0);
    CHECK(better(a, b) != better(b, a));
    CHECK_FALSE(better(a, a));
}

TEST_CASE("merge is associative, commutative and idempotent, and keeps provenance") {
    std::mt19937_64 rng(42);
    std::uniform_int_distribution<int> bucket(1, 6), cfg(1, 4), half(0, 3);
    std::uniform_real_distribution<double> med(9.0, 11.0);
    const auto random_file = [&](const std::string& host) {
        std::vector<entry> es;
        for (int i = 0; i < 40; ++i) {
            auto e = make(key({bucket(rng)}), cfg(rng), med(rng), 0.1 * half(rng), 10 + half(rng));
            e.origin.host = host;
            es.push_back(e);
        }
        return es;
    };
    const auto A = random_file("a"), B = random_file("b"), C = random_file("c");
    const auto ab_c = merge(merge(A, B), C);
    const auto a_bc = merge(A, merge(B, C));
    const auto c_ab = merge(C, merge(B, A));
    CHECK(ab_c == a_bc);
    CHECK(ab_c == c_ab);
    CHECK(format_cache(ab_c) == format_cache(a_bc));
    CHECK(merge(ab_c, ab_c) == ab_c);
    CHECK(merge(ab_c) == ab_c);
    // Every winner is one of the inputs, provenance included, and no input beats it.
    std::vector<entry> all(A);
    all.insert(all.end(), B.begin(), B.end());
    all.insert(all.end(), C.begin(), C.end());
    for (const auto& w : ab_c) {
        bool found = false;
        for (const auto& e : all) {
            if (!(e.key == w.key)) continue;
            found = found || e == w;
            CHECK_FALSE(better(e, w));
        }
        CHECK(found);
    }
}
