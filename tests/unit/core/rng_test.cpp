// The one random source (ktune/core/rng.hpp) pinned to fixed sequences: a seeded search, a
// bootstrap interval or a reservoir sample recorded on one machine must replay on any other.
#include "catch.hpp"

#include "ktune/core/rng.hpp"

#include <cstdint>

TEST_CASE("splitmix64 is Vigna's, and splitmix64_at reaches any draw directly") {
    ktune::splitmix64 g(0);
    CHECK(g.next() == 0xE220A8397B1DCDAFull); // splitmix64.c seeded with 0
    ktune::splitmix64 s(12345);
    for (std::uint64_t i = 0; i < 100; ++i)
        CHECK(s.next() == ktune::splitmix64_at(12345, i));
    // The output function is a bijection's last step: 0 stays 0, everything else moves.
    CHECK(ktune::splitmix64_mix(0) == 0);
    CHECK(ktune::splitmix64_mix(1) != 1);
    static_assert(ktune::splitmix64_at(0, 0) == 0xE220A8397B1DCDAFull, "usable at compile time");
}

TEST_CASE("splitmix64's bounded draw scales one uniform draw") {
    ktune::splitmix64 a(7), b(7);
    for (int i = 0; i < 1000; ++i) {
        const std::uint64_t n = 1 + static_cast<std::uint64_t>(i) % 97;
        const std::uint64_t k = a.below(n);
        CHECK(k < n);
        CHECK(k == static_cast<std::uint64_t>(b.uniform() * static_cast<double>(n)));
    }
}

TEST_CASE("rng is xoshiro256** seeded by splitmix64, with the same draws as ever") {
    ktune::rng r(0);
    CHECK(r.next() == 0x99EC5F36CB75F2B4ull);
    CHECK(r.next() == 0xBF6E1F784956452Aull);
    CHECK(r.next() == 0x1A5F849D4933E6E0ull);
    ktune::rng q(42);
    for (const std::uint64_t want : {742u, 102u, 9u, 193u, 476u})
        CHECK(q.below(1000) == want);
    CHECK(q.uniform() == 0.76973946043424246);
    CHECK(ktune::rng::derive(42, 3) == 0x09BC585A244823F2ull);
    CHECK(ktune::rng::derive(42, 3) != ktune::rng::derive(42, 4));
}

TEST_CASE("the device text of splitmix64_at holds the host's constants and statements") {
    const std::string cuda = KTUNE_SPLITMIX64_CUDA;
    CHECK(cuda.find("ktune_splitmix64_at(unsigned long long seed,") != std::string::npos);
    CHECK(cuda.find("seed + 0x9E3779B97F4A7C15ull * (i + 1);") != std::string::npos);
    CHECK(cuda.find("(z) = ((z) ^ ((z) >> 30)) * 0xBF58476D1CE4E5B9ull;") != std::string::npos);
    CHECK(cuda.find("(z) ^= (z) >> 31;") != std::string::npos);
}
