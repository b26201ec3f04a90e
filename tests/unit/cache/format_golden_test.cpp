// The cache file format pinned byte for byte (docs/formats.md#ktunecache--the-config-cache-file):
// a change to the writer that changes the file shows up here, not in users' diffs.
#include "cache_test_util.hpp"
#include "catch.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace ktune::cache;

TEST_CASE("the cache file format matches the golden file") {
    auto a = cache_test::make(cache_test::key({4096, 4096}), 128, 812.25);
    a.cfg = ktune::config{{"block_m", std::int64_t{128}},
                          {"ratio", 2.0},
                          {"swizzle", true},
                          {"layout", std::string("row\"major")}};
    const auto b = cache_test::make(cache_test::key({8192}, "softmax"), 4, 5.125);
    const std::string text = format_cache(std::vector<entry>{b, a});
    const char* golden_path = KTUNE_TEST_DATA_DIR "/cache/golden.json";
    // After a deliberate format change: KTUNE_UPDATE_GOLDEN=1 rewrites the file; review the diff.
    if (std::getenv("KTUNE_UPDATE_GOLDEN")) std::ofstream(golden_path, std::ios::binary) << text;
    std::ifstream in(golden_path, std::ios::binary);
    REQUIRE(in);
    std::stringstream golden;
    golden << in.rdbuf();
    CHECK(text == golden.str());
    CHECK(parse_cache(golden.str(), "golden.json") == merge(std::vector<entry>{a, b}));
}
