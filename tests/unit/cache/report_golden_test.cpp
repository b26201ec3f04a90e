// The `ktune cache … --json` reports (docs/formats.md, ktune.cache.<command>) pinned byte for
// byte, each on entries built here; and the text forms' facts.
#include "cache_test_util.hpp"
#include "golden.hpp"

#include "ktune/cache/cache_report.hpp"

#include <string>
#include <vector>

using namespace ktune::cache;
using cache_test::key;
using cache_test::make;
using ktune_test::check_golden;

namespace {

// Two gemm entries and a softmax one, in key order as an index holds them.
std::vector<entry> three_entries() {
    return merge(std::vector<entry>{make(key({4096, 4096}), 128, 812.25),
                                    make(key({8192, 8192}), 256, 3100.5, 2.0, 30),
                                    make(key({8192}, "softmax"), 64, 41.125)});
}

} // namespace

TEST_CASE("ktune.cache.ls: the filter's entries, each with its readable key first") {
    const auto entries = three_entries();
    key_filter gemm_only;
    gemm_only.op = "gemm";
    const std::string json = ls_json("cache.json", entries, gemm_only);
    check_golden(json + "\n", "reports/cache_ls.json");
    CHECK(json.find("softmax") == std::string::npos);
    const std::string text = format_ls("cache.json", entries, gemm_only);
    CHECK(text.find("median 812.2 us [811.8, 812.8] n=20") != std::string::npos);
    CHECK(text.find("2 of 3 entries in cache.json\n") != std::string::npos);
}

TEST_CASE("ktune.cache.get: the tier, the query and the entry; from_redis only when asked") {
    const auto entries = three_entries();
    through_result hit;
    hit.tier = lookup_tier::nearest;
    hit.hit = entries.front();
    const cache_key query = key({4000, 4000});
    check_golden(get_json("cache.json", query, hit, true) + "\n", "reports/cache_get.json");
    CHECK(get_json("cache.json", query, hit, false).find("from_redis") == std::string::npos);
    CHECK(format_get("cache.json", query, hit).rfind("nearest: gemm@v3", 0) == 0);
    const through_result miss;
    CHECK(get_json("cache.json", query, miss, false).find("\"entry\"") == std::string::npos);
    CHECK(format_get("cache.json", query, miss).rfind("miss: nothing tuned for", 0) == 0);
}

TEST_CASE("ktune.cache.merge, .verify, .rm: counts and problems") {
    const std::vector<std::string> inputs{"a.json", "b.json"};
    check_golden(merge_json(inputs, "out.json", {.entries_in = 7, .entries_out = 4}) + "\n",
                 "reports/cache_merge.json");
    CHECK(format_merge(inputs, "out.json", {7, 4}) ==
          "merged 7 entries from 2 files into 4 entries in out.json\n");

    const std::vector<verify_issue> issues{{1, "gemm@v3 fp16 8192x8192", "duplicate key"},
                                           {3, "softmax@v3 fp16 8192", "median outside its CI"}};
    check_golden(verify_json("cache.json", issues) + "\n", "reports/cache_verify.json");
    CHECK(verify_json("cache.json", {}).find("\"valid\": true") != std::string::npos);
    CHECK(format_verify("cache.json", {}, 3) == "cache.json: valid (3 entries)\n");
    CHECK(format_verify("cache.json", issues, 3).find("entry 3 (softmax@v3 fp16 8192)") !=
          std::string::npos);

    check_golden(rm_json("cache.json", 2) + "\n", "reports/cache_rm.json");
    CHECK(format_rm("cache.json", 2) == "removed 2 entries from cache.json\n");
}

TEST_CASE("ktune.cache.push and .pull: what went to and came from the shared tier") {
    const push_report push{"cache.json", "redis://127.0.0.1:6379/0", 3, 2};
    check_golden(push_json(push) + "\n", "reports/cache_push.json");
    CHECK(format_push(push).rfind("pushed 2 of 3 entries", 0) == 0);

    const pull_report pull{"cache.json",
                           "redis://127.0.0.1:6379/0",
                           5,
                           {.added = 2, .replaced = 1, .kept = 2, .total = 9},
                           1};
    check_golden(pull_json(pull) + "\n", "reports/cache_pull.json");
    CHECK(format_pull(pull).find("2 added, 1 replaced, 2 kept; 9 now") != std::string::npos);
    CHECK(format_pull(pull).find("warning: 1 values in Redis") != std::string::npos);
    CHECK(format_pull({}).find("warning") == std::string::npos);
}
