// Several tunes in one process without a GPU: the plan file (round trip of its entries, errors
// that name file:line:column or the JSON path), the command line's product, and the checks
// every request passes before any GPU work.
#include "catch.hpp"

#include "ktune/core/error.hpp"
#include "ktune/tune/tuner_plan.hpp"

#include <string>

using namespace ktune;

namespace {
std::string message_of(const std::string& text) {
    try {
        (void)tune::parse_tune_plan(text, "p.json");
    } catch (const error& e) {
        return e.what();
    }
    return "(no error)";
}
} // namespace

TEST_CASE("a plan file gives one entry per tune, defaults filled in") {
    const auto p = tune::parse_tune_plan(
        R"({"schema": "ktune.tune_plan", "version": "1.0.0", "tunes": [
             {"op": "softmax", "shape": "8192x8192", "dtype": "bf16", "budget": 200},
             {"op": "transpose", "shape": "64x128", "strategy": "random"}]})",
        "p.json");
    REQUIRE(p.size() == 2);
    tune::plan_entry a{"softmax", "8192x8192", "bf16", 200, "", "p.json: /tunes/0"};
    tune::plan_entry b{"transpose", "64x128", "fp32", 0, "random", "p.json: /tunes/1"};
    CHECK(p[0] == a);
    CHECK(p[1] == b);
    // The bare array is the same plan.
    const auto bare = tune::parse_tune_plan(
        R"([{"op": "softmax", "shape": "8192x8192", "dtype": "bf16", "budget": 200}])", "q");
    REQUIRE(bare.size() == 1);
    CHECK(bare[0].op == "softmax");
    CHECK(bare[0].budget == 200);
    CHECK(bare[0].where == "q: /0");
}

TEST_CASE("a bad plan names the line and column, or the JSON path, and what to do") {
    CHECK(message_of("{\"tunes\": [\n  {\"op\": \"softmax\" \"shape\": \"1x1\"}]}")
              .find("p.json:2:") == 0);
    CHECK(message_of(R"([{"shape": "64x64"}])").find("p.json: /0: 'op' is missing") == 0);
    CHECK(message_of(R"([{"op": "", "shape": "4x8"}])").find("/0/op: must not be empty") !=
          std::string::npos);
    CHECK(message_of(R"([{"op": "softmax", "shape": 64}])").find("/0/shape: must be a string") !=
          std::string::npos);
    CHECK(message_of(R"([{"op": "softmax", "shape": "64x64", "budget": -3}])")
              .find("/0/budget: must be a positive integer") != std::string::npos);
    CHECK(message_of(R"([{"op": "softmax", "shape": "64x64", "budgett": 3}])")
              .find("/0/budgett: unknown key") != std::string::npos);
    CHECK(message_of(R"({"version": "2.0.0", "tunes": []})").find("/version") != std::string::npos);
    CHECK(message_of(R"({"schema": "ktune.cache", "tunes": []})").find("/schema") !=
          std::string::npos);
    CHECK(message_of(R"({"tunes": []})").find("no tunes") != std::string::npos);
    CHECK(message_of(R"({"tune": []})").find("no \"tunes\" array") != std::string::npos);
    CHECK(message_of(R"([3])").find("/0: a tune is an object") != std::string::npos);
    CHECK_THROWS_AS(tune::load_tune_plan("/nonexistent/plan.json"), error);
}

TEST_CASE("the command line's ops x shapes x dtypes, in order") {
    const auto p = tune::plan_product({"softmax"}, {"64x64", "128x256"}, {"bf16", "fp32"});
    REQUIRE(p.size() == 4);
    CHECK(p[0].shape == "64x64");
    CHECK(p[0].dtype == "bf16");
    CHECK(p[1].dtype == "fp32");
    CHECK(p[3].shape == "128x256");
    CHECK(p[3].where == "softmax --shape 128x256 --dtype fp32");
}

TEST_CASE("every request is checked before any GPU work; entries override the base") {
    tune::tune_request base;
    base.budget = 32;
    base.seed = 9;
    base.cache_file = "/tmp/x.json";
    auto p = tune::plan_product({"softmax"}, {"64x64"}, {"bf16"});
    p.push_back({"rowsum", "128x256", "fp32", 7, "random", "here"});
    const auto rqs = tune::plan_requests(p, base);
    REQUIRE(rqs.size() == 2);
    CHECK(rqs[0].op == "softmax");
    CHECK(rqs[0].prob.shape.rows == 64);
    CHECK(rqs[0].prob.type == ops::dtype::bf16);
    CHECK(rqs[0].budget == 32);
    CHECK(rqs[0].strategy == "auto");
    CHECK(rqs[1].budget == 7);
    CHECK(rqs[1].strategy == "random");
    CHECK(rqs[1].seed == 9);
    CHECK(rqs[1].cache_file == base.cache_file);
    const auto fails = [&](tune::plan_entry e, const char* what) {
        e.where = "entry 3";
        try {
            (void)tune::plan_requests({e}, base);
        } catch (const error& err) {
            INFO(err.what());
            CHECK(std::string(err.what()).find("entry 3: ") == 0);
            CHECK(std::string(err.what()).find(what) != std::string::npos);
            return;
        }
        FAIL("no error for " << what);
    };
    fails({"gemmm", "64x64", "fp32", 0, "", ""}, "gemmm");
    fails({"softmax", "64by64", "fp32", 0, "", ""}, "64by64");
    fails({"softmax", "64x64", "fp16", 0, "", ""}, "fp16");
    fails({"softmax", "64x64", "fp32", 0, "magic", ""}, "magic");
}
