#include "cache_test_util.hpp"
#include "catch.hpp"

#include "ktune/core/error.hpp"

using namespace ktune::cache;

TEST_CASE("cache keys: every field is part of the identity and of the hash") {
    const cache_key base = cache_test::key({4096, 4096});
    CHECK(base.to_string() == "gemm@v3 fp16 4096x4096 sm_90 cuda13.0 drv580 p1");
    std::vector<cache_key> variants(8, base);
    variants[0].op = "gemm2";
    variants[1].op_version = "v4";
    variants[2].dtype = "bf16";
    variants[3].bucket = {4096, 2048};
    variants[4].arch = "sm_100";
    variants[5].toolkit = 12080;
    variants[6].driver_major = 575;
    variants[7].protocol = 2;
    for (const auto& v : variants) {
        INFO(v.to_string());
        CHECK_FALSE(v == base);
        CHECK(key_hash(v) != key_hash(base));
        CHECK((key_less(v, base) || key_less(base, v)));
    }
    CHECK(same_family(variants[3], base));
    CHECK(family_hash(variants[3]) == family_hash(base));
    for (std::size_t i : {0, 1, 2, 4, 5, 6, 7})
        CHECK_FALSE(same_family(variants[i], base));
    // Field boundaries matter: ("ab","c") and ("a","bc") are different keys.
    cache_key a = base, b = base;
    a.op = "ab";
    a.op_version = "c";
    b.op = "a";
    b.op_version = "bc";
    CHECK(key_hash(a) != key_hash(b));
}

TEST_CASE("shape buckets: exact, power of two, tile multiple, custom") {
    CHECK(bucket_policy::exact().apply({1000, 3}) == std::vector<std::int64_t>{1000, 3});
    CHECK(bucket_policy::pow2().apply({1000, 1, 0, 1024, 1025}) ==
          std::vector<std::int64_t>{1024, 1, 0, 1024, 2048});
    CHECK(bucket_policy::tile({128}).apply({1000, 128, 1}) ==
          std::vector<std::int64_t>{1024, 128, 128});
    CHECK(bucket_policy::tile({128, 64}).apply({1000, 65}) == std::vector<std::int64_t>{1024, 128});
    CHECK(bucket_policy::tile({128, 64}).describe() == "tile:128x64");
    CHECK_THROWS_AS(bucket_policy::tile({128, 64}).apply({1, 2, 3}), ktune::error);
    CHECK_THROWS_AS(bucket_policy::tile({0}), ktune::error);
    CHECK_THROWS_AS(bucket_policy::pow2().apply({-1}), ktune::error);
    const auto batch_only =
        bucket_policy::custom("batch-pow2", [](std::span<const std::int64_t> s) {
            std::vector<std::int64_t> out(s.begin(), s.end());
            if (!out.empty()) out[0] = out[0] <= 8 ? 8 : 64;
            return out;
        });
    CHECK(batch_only.apply({3, 768}) == std::vector<std::int64_t>{8, 768});
    CHECK(batch_only.describe() == "custom:batch-pow2");
}

TEST_CASE("shapes parse and print") {
    CHECK(parse_shape("4096x1024x8") == std::vector<std::int64_t>{4096, 1024, 8});
    CHECK(parse_shape("7") == std::vector<std::int64_t>{7});
    CHECK(format_shape(parse_shape("16x32")) == "16x32");
    for (const char* bad : {"", "x", "4096x", "12a", "-3", "1x-2"}) {
        INFO(bad);
        CHECK_THROWS_AS(parse_shape(bad), ktune::error);
    }
}
