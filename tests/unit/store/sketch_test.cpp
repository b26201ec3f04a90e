// The store's blobs: SHA-256 against FIPS 180-4 vectors, the quantile sketch's accuracy after
// merging (the 1 % fleet-quantile target, docs/perf/store.md#sketch-accuracy), the reservoir.
#include "catch.hpp"

#include "ktune/core/error.hpp"
#include "ktune/store/sketch.hpp"
#include "store/sha256.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

using namespace ktune::store;

namespace {

std::string sha(const std::string& s) {
    detail::sha256 h;
    h.update({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()});
    return h.hex();
}

std::span<const std::uint8_t> bytes(const std::string& s) {
    return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

// The value at rank floor(q (n - 1)) of the sorted sample: the sketch's convention.
double exact(std::vector<std::uint64_t> v, double q) {
    std::sort(v.begin(), v.end());
    return static_cast<double>(v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))]);
}

} // namespace

TEST_CASE("sha256 matches the FIPS 180-4 examples") {
    CHECK(sha("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(sha("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(sha("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    // Fed in odd pieces: the same digest.
    detail::sha256 h;
    const std::string m(1000, 'a');
    for (std::size_t i = 0; i < m.size(); i += 37)
        h.update(bytes(m.substr(i, 37)));
    CHECK(h.hex() == sha(m));
}

TEST_CASE("merged sketches keep fleet quantiles within 1 % of the exact ones") {
    std::mt19937_64 rng(42);
    std::lognormal_distribution<double> lognormal(std::log(20000.0), 0.6);
    std::normal_distribution<double> fast(8000, 300), slow(90000, 5000);
    std::uniform_int_distribution<std::uint64_t> uniform(1, 2'000'000);
    const std::vector<std::string> shapes{"lognormal", "bimodal", "uniform"};
    for (const auto& shape : shapes) {
        std::vector<std::uint64_t> all;
        quantile_sketch fleet;
        for (int run = 0; run < 50; ++run) { // 50 runs, merged through their blobs
            quantile_sketch s;
            for (int i = 0; i < 2000; ++i) {
                double v = 0;
                if (shape == "lognormal")
                    v = lognormal(rng);
                else if (shape == "bimodal")
                    v = i % 3 == 0 ? slow(rng) : fast(rng);
                else
                    v = static_cast<double>(uniform(rng));
                const auto ns = static_cast<std::uint64_t>(std::max(1.0, v));
                s.add(ns);
                all.push_back(ns);
            }
            fleet.merge(quantile_sketch::deserialize(bytes(s.serialize())));
        }
        REQUIRE(fleet.count() == all.size());
        for (double q : {0.5, 0.95, 0.99}) {
            INFO(shape << " q " << q);
            const double want = exact(all, q);
            CHECK(std::abs(fleet.quantile(q) - want) / want <= 0.01);
        }
    }
}

TEST_CASE("sketch: zeros, empty, round trip, merge order, corrupt blobs") {
    quantile_sketch a, b;
    CHECK(a.quantile(0.5) == 0);
    a.add(0, 3);
    a.add(1000);
    b.add(5);
    b.add(1'000'000'000);
    auto ab = a, ba = b;
    ab.merge(b);
    ba.merge(a);
    CHECK(ab.quantile(0.99) == ba.quantile(0.99));
    CHECK(ab.count() == 6);
    CHECK(ab.quantile(0) == 0);
    CHECK(quantile_sketch::deserialize(bytes(ab.serialize())) == ab);
    CHECK_THROWS_AS(quantile_sketch::deserialize(bytes(std::string("\x07", 1))), ktune::error);
    auto blob = ab.serialize();
    blob.pop_back();
    blob.back() = static_cast<char>(0x80); // a varint cut short
    CHECK_THROWS_AS(quantile_sketch::deserialize(bytes(blob)), ktune::error);
}

TEST_CASE("reservoir: bounded, uniform enough, deterministic, round trip") {
    duration_reservoir r1, r2;
    for (std::uint64_t i = 0; i < 100000; ++i) {
        r1.add(i);
        r2.add(i);
    }
    CHECK(r1.values().size() == duration_reservoir::capacity);
    CHECK(r1.seen() == 100000);
    CHECK(r1.values() == r2.values());
    // Uniform over the stream: the kept values' mean is near the stream's (49999.5), not
    // stuck at the first capacity values.
    double mean = 0;
    for (auto v : r1.values())
        mean += static_cast<double>(v) / duration_reservoir::capacity;
    CHECK(mean > 30000);
    CHECK(mean < 70000);
    const auto back = duration_reservoir::deserialize(bytes(r1.serialize()));
    auto sorted = r1.values();
    std::sort(sorted.begin(), sorted.end());
    CHECK(back.values() == sorted);
    CHECK(back.seen() == r1.seen());
}
