#pragma once
// The one random source of the search: xoshiro256** seeded through splitmix64, with its own
// bounded-integer and real draws. std::uniform_int_distribution is implementation-defined, so
// using it would give a different search on libc++ than on libstdc++; "same seed, same output"
// must hold across machines.
//
//   ktune::tune::rng r(42);  std::uint64_t k = r.below(10);  double u = r.uniform();

#include <cstdint>

namespace ktune::tune {

class rng {
public:
    explicit rng(std::uint64_t seed = 0) noexcept {
        for (auto& w : s_)
            w = splitmix(seed);
    }

    std::uint64_t next() noexcept {
        const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const std::uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }

    /// Uniform in [0, n), n > 0; unbiased: draws below 2^64 mod n are rejected.
    std::uint64_t below(std::uint64_t n) noexcept {
        const std::uint64_t threshold = (0 - n) % n;
        for (;;) {
            const std::uint64_t x = next();
            if (x >= threshold) return x % n;
        }
    }

    /// Uniform in [0, 1) with 53 random bits.
    double uniform() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

    /// A child stream: independent of this one's later draws (per-run seeds of a repeat).
    static std::uint64_t derive(std::uint64_t seed, std::uint64_t stream) noexcept {
        std::uint64_t x = seed ^ (0x9E3779B97F4A7C15ull * (stream + 1));
        return splitmix(x);
    }

private:
    static std::uint64_t rotl(std::uint64_t x, int k) noexcept {
        return (x << k) | (x >> (64 - k));
    }
    static std::uint64_t splitmix(std::uint64_t& x) noexcept {
        std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    std::uint64_t s_[4]{};
};

} // namespace ktune::tune
