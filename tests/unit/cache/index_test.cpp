#include "cache_test_util.hpp"
#include "catch.hpp"

using namespace ktune::cache;
using cache_test::key;
using cache_test::make;

TEST_CASE("lookup tiers: exact, nearest bucket, op default, miss") {
    const cache_index idx({make(key({1024, 1024}), 64, 20), make(key({4096, 4096}), 128, 800),
                           make(key({256}), 32, 3)});
    const ktune::config fallback{{"block", std::int64_t{16}}};

    auto r = idx.lookup(prepared_key(key({4096, 4096})), fallback);
    CHECK(r.tier == lookup_tier::exact);
    REQUIRE(r);
    CHECK(r.cfg->get<int>("block") == 128);
    CHECK(r.hit->time.median_us == 800);

    // 3000x3000 is closer to 4096 (log distance 0.45 per dim) than to 1024 (1.55).
    r = idx.lookup(prepared_key(key({3000, 3000})), fallback);
    CHECK(r.tier == lookup_tier::nearest);
    CHECK(r.cfg->get<int>("block") == 128);
    r = idx.lookup(prepared_key(key({1500, 1500})), fallback);
    CHECK(r.tier == lookup_tier::nearest);
    CHECK(r.cfg->get<int>("block") == 64);
    // Rank must match: a 1-D query never takes a 2-D bucket, so it finds the 1-D entry.
    r = idx.lookup(prepared_key(key({100000})), fallback);
    CHECK(r.tier == lookup_tier::nearest);
    CHECK(r.cfg->get<int>("block") == 32);

    r = idx.lookup(prepared_key(key({1, 2, 3})), fallback);
    CHECK(r.tier == lookup_tier::op_default);
    CHECK(r.hit == nullptr);
    CHECK(r.cfg == &fallback);

    r = idx.lookup(prepared_key(key({1, 2, 3})));
    CHECK(r.tier == lookup_tier::miss);
    CHECK_FALSE(r);
    CHECK(to_string(lookup_tier::nearest) == "nearest");
}

TEST_CASE("nearest ties go to the covering bucket, then the smallest") {
    // 2048 is one octave from both 1024 and 4096: the larger bucket covers the shape.
    const cache_index idx({make(key({1024}), 1, 10), make(key({4096}), 2, 10)});
    auto r = idx.lookup(prepared_key(key({2048})));
    CHECK(r.tier == lookup_tier::nearest);
    CHECK(r.cfg->get<int>("block") == 2);
    // Two buckets equally far and both covering (or neither): the smaller bucket, always.
    const cache_index idx2({make(key({8, 2}), 1, 10), make(key({2, 8}), 2, 10)});
    r = idx2.lookup(prepared_key(key({4, 4})));
    CHECK(r.cfg->get<int>("block") == 2);
}

TEST_CASE("a toolkit, driver, arch, source or protocol change never hits the old entry") {
    const cache_index idx({make(key({4096, 4096}), 128, 800)});
    const ktune::config fallback{{"block", std::int64_t{16}}};
    std::vector<cache_key> stale(5, key({4096, 4096}));
    stale[0].toolkit = 13010;
    stale[1].driver_major = 590;
    stale[2].arch = "sm_100";
    stale[3].op_version = "v4";
    stale[4].protocol = 2;
    for (const auto& k : stale) {
        INFO(k.to_string());
        const auto r = idx.lookup(prepared_key(k), fallback);
        CHECK(r.tier == lookup_tier::op_default);
        CHECK(r.hit == nullptr);
    }
}

TEST_CASE("an index keeps the better of duplicate keys and lists entries in key order") {
    const cache_index idx(
        {make(key({4096}), 1, 10.0), make(key({1024}), 2, 5.0), make(key({4096}), 3, 8.0)});
    REQUIRE(idx.size() == 2);
    CHECK(idx.entries()[0].key.bucket == std::vector<std::int64_t>{1024});
    CHECK(idx.find(prepared_key(key({4096})))->cfg.get<int>("block") == 3);
    CHECK(idx.find(prepared_key(key({2048}))) == nullptr);
    const cache_index empty;
    CHECK(empty.size() == 0);
    CHECK(empty.lookup(prepared_key(key({1}))).tier == lookup_tier::miss);
}

TEST_CASE("a large index finds every key exactly") {
    std::vector<entry> es;
    for (std::int64_t i = 0; i < 5000; ++i)
        es.push_back(make(key({i, 7}), i, 1.0 + i));
    const cache_index idx(es);
    for (std::int64_t i = 0; i < 5000; i += 7) {
        const auto r = idx.lookup(prepared_key(key({i, 7})));
        REQUIRE(r.tier == lookup_tier::exact);
        CHECK(r.cfg->get<std::int64_t>("block") == i);
    }
}
