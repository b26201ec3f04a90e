#pragma once
// ktune's one source of pseudo-random numbers. Every seeded result (a search replayed for a seed,
// a bootstrap interval, a reservoir sample, generated GEMM inputs) must be the same on every
// machine and standard library, which std::uniform_int_distribution and friends do not promise;
// so the generators and their bounded and real draws are written out here:
//  - splitmix64 (Vigna): one word of state. Its output function `splitmix64_mix` is also the
//    avalanche of hashes (cache keys) and, through `splitmix64_at`, a counter-based stream
//    (inputs generated per element, in any order).
//  - rng: xoshiro256** seeded through splitmix64; the search's generator.
//
//   ktune::rng r(42);  std::uint64_t k = r.below(10);  double u = r.uniform();
//   ktune::splitmix64 g(7);  std::uint64_t i = g.below(100);

#include <cstdint>

namespace ktune {

// splitmix64's increment (2^64 / golden ratio) and output function, written once as text so
// that device code compiled at run time (NVRTC cannot include this header) gets the same
// statements: KTUNE_SPLITMIX64_CUDA below.
#define KTUNE_SPLITMIX64_GAMMA 0x9E3779B97F4A7C15ull
#define KTUNE_SPLITMIX64_MIX(z)                                                                    \
    (z) = ((z) ^ ((z) >> 30)) * 0xBF58476D1CE4E5B9ull;                                             \
    (z) = ((z) ^ ((z) >> 27)) * 0x94D049BB133111EBull;                                             \
    (z) ^= (z) >> 31;
#define KTUNE_RNG_TEXT_(...) #__VA_ARGS__
#define KTUNE_RNG_TEXT(...) KTUNE_RNG_TEXT_(__VA_ARGS__)

/// Device source (a string literal, to concatenate with a kernel's): `ktune_splitmix64_at(seed,
/// i)`, splitmix64_at below on the GPU.
// clang-format off
#define KTUNE_SPLITMIX64_CUDA                                                                      \
    "__device__ __forceinline__ unsigned long long ktune_splitmix64_at(unsigned long long seed,\n" \
    "                                                                 unsigned long long i) {\n"  \
    "    unsigned long long z = seed + " KTUNE_RNG_TEXT(KTUNE_SPLITMIX64_GAMMA) " * (i + 1);\n"     \
    "    " KTUNE_RNG_TEXT(KTUNE_SPLITMIX64_MIX(z)) "\n"                                             \
    "    return z;\n"                                                                             \
    "}\n"
// clang-format on

inline constexpr std::uint64_t splitmix64_gamma = KTUNE_SPLITMIX64_GAMMA;

/// splitmix64's output function: a bijective avalanche of all 64 bits.
constexpr std::uint64_t splitmix64_mix(std::uint64_t z) noexcept {
    KTUNE_SPLITMIX64_MIX(z)
    return z;
}

/// Draw `i` (0-based) of a splitmix64 seeded with `seed`, without the draws before it.
constexpr std::uint64_t splitmix64_at(std::uint64_t seed, std::uint64_t i) noexcept {
    return splitmix64_mix(seed + splitmix64_gamma * (i + 1));
}

/// The splitmix64 stream: `next()` is splitmix64_at(seed, 0), then 1, 2, …
class splitmix64 {
public:
    constexpr explicit splitmix64(std::uint64_t seed = 0) noexcept : state_(seed) {}

    constexpr std::uint64_t next() noexcept { return splitmix64_mix(state_ += splitmix64_gamma); }

    /// Uniform in [0, 1) with 53 random bits.
    constexpr double uniform() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

    /// In [0, n), n > 0, from one uniform() scaled: bias < n / 2^53, exact enough for any sample
    /// count (n < 2^40), and one draw per call, which the recorded bootstrap intervals rely on.
    constexpr std::uint64_t below(std::uint64_t n) noexcept {
        const auto k = static_cast<std::uint64_t>(uniform() * static_cast<double>(n));
        return k < n ? k : n - 1;
    }

private:
    std::uint64_t state_;
};

/// xoshiro256** (Blackman & Vigna), its state filled by splitmix64 from the seed.
class rng {
public:
    constexpr explicit rng(std::uint64_t seed = 0) noexcept {
        splitmix64 fill(seed);
        for (auto& w : s_)
            w = fill.next();
    }

    constexpr std::uint64_t next() noexcept {
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
    constexpr std::uint64_t below(std::uint64_t n) noexcept {
        const std::uint64_t threshold = (0 - n) % n;
        for (;;) {
            const std::uint64_t x = next();
            if (x >= threshold) return x % n;
        }
    }

    /// Uniform in [0, 1) with 53 random bits.
    constexpr double uniform() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

    /// A child stream's seed: independent of this one's later draws (per-run seeds of a repeat).
    static constexpr std::uint64_t derive(std::uint64_t seed, std::uint64_t stream) noexcept {
        return splitmix64(seed ^ (splitmix64_gamma * (stream + 1))).next();
    }

private:
    static constexpr std::uint64_t rotl(std::uint64_t x, int k) noexcept {
        return (x << k) | (x >> (64 - k));
    }
    std::uint64_t s_[4]{};
};

} // namespace ktune
