// --replay launches told apart by work: a kernel that runs several problems on one grid (cuBLAS's
// persistent GEMMs) gets one sample per problem, each from launches of that problem only; a
// kernel whose arguments change on every launch falls back to name and shape; the sampling
// policy admits a kernel by name once.
#include "catch.hpp"

#include "fake_user_ranges.hpp"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace {
const std::string grid = "132,1,1/384,1,1/0";
std::string work(int w) {
    return grid + "/w" + std::string(15, '0') + std::to_string(w);
}
} // namespace

TEST_CASE("a GEMM run at three sizes on one grid gets one sample per size") {
    driver d(std::make_unique<fake_user_ranges>(), three_pass_set(), every_kernel());
    // A layer: QKV projection, norm, gate/up projection, down projection, all the GEMMs on one
    // persistent kernel and one grid (as cuBLAS's nvjet kernels run them).
    std::multimap<std::string, std::string> shapes_profiled; // "gemm" work -> launch
    for (int it = 0; it < 6; ++it) {
        for (const auto& [name, shape] :
             std::vector<std::pair<std::string, std::string>>{{"gemm", work(1)},
                                                              {"norm", "16,1,1/256,1,1/0"},
                                                              {"gemm", work(2)},
                                                              {"gemm", work(3)}}) {
            const auto before = d.profiled.size();
            d.launch(name, shape);
            if (d.profiled.size() > before) shapes_profiled.emplace(name, shape);
        }
    }
    const auto doc = d.s.finish();
    CHECK(doc.incomplete_kernels == 0);
    REQUIRE(doc.kernels.size() == 4);
    std::set<std::string> works;
    for (const auto& k : doc.kernels) {
        CHECK(k.pass_launches == 3);
        if (k.name == "gemm")
            works.insert(k.work);
        else
            CHECK(k.work.empty()); // no work part in its key
    }
    CHECK(works == std::set<std::string>{work(1).substr(grid.size() + 2),
                                         work(2).substr(grid.size() + 2),
                                         work(3).substr(grid.size() + 2)});
    // Each work's three passes ran on launches of that work: 3 launches of each.
    for (int w = 1; w <= 3; ++w) {
        int n = 0;
        for (const auto& [name, shape] : shapes_profiled)
            n += name == "gemm" && shape == work(w);
        CHECK(n == 3);
    }
    CHECK(d.fake->starts == 3); // still one sequence of three passes
}

TEST_CASE("without work keys the sizes merge into one sample (the old behaviour)") {
    driver d(std::make_unique<fake_user_ranges>(), three_pass_set(), every_kernel());
    for (int it = 0; it < 6; ++it)
        for (int w = 1; w <= 3; ++w)
            d.launch("gemm", grid);
    const auto doc = d.s.finish();
    REQUIRE(doc.kernels.size() == 1);
    CHECK(doc.kernels[0].work.empty());
}

TEST_CASE("a kernel whose arguments change on every launch falls back to name and shape") {
    driver d(std::make_unique<fake_user_ranges>(), three_pass_set(), every_kernel());
    // A step counter passed by value: every launch another key, none ever repeats. The first
    // keys join pass 0 and never come back (incomplete); once the kernel has shown 32 keys
    // without repeats, its launches share the plain key and get a sample.
    for (int it = 0; it < 200; ++it)
        d.launch("adam_step", grid + "/w" + std::to_string(1000000 + it));
    const auto doc = d.s.finish();
    REQUIRE_FALSE(doc.kernels.empty());
    CHECK(doc.kernels.back().name == "adam_step");
    CHECK(doc.kernels.back().work.empty());
    CHECK(doc.kernels.back().pass_launches == 3);
}

TEST_CASE("the policy admits a kernel by name once; each of its works gets its samples") {
    sampling_options one;
    one.max_kernels = 1; // one kernel name
    one.max_per_kernel = 1;
    driver d(std::make_unique<fake_user_ranges>(), three_pass_set(), one);
    for (int it = 0; it < 8; ++it) {
        d.launch("gemm", work(1));
        d.launch("gemm", work(2));
        d.launch("other", "1/1/0");
    }
    const auto doc = d.s.finish();
    REQUIRE(doc.kernels.size() == 2);
    CHECK(doc.kernels[0].name == "gemm");
    CHECK(doc.kernels[1].name == "gemm");
    CHECK(doc.kernels[0].work != doc.kernels[1].work);
    // One sample per work: later loop iterations start no second sequence for them.
    CHECK(d.fake->decodes == 1);
}

TEST_CASE("an optimizer step with a per-step argument falls back once the loop went round") {
    driver d(std::make_unique<fake_user_ranges>(), three_pass_set(), every_kernel());
    // A training loop: two GEMMs and a norm whose keys repeat every step, and an optimizer
    // kernel whose step count changes every launch. Its keys never repeat while the others'
    // do; after 64 repeats elsewhere it is keyed by name and shape and gets a sample too.
    for (int it = 0; it < 40; ++it) {
        d.launch("gemm", work(1));
        d.launch("norm", "16,1,1/256,1,1/0");
        d.launch("gemm", work(2));
        d.launch("adam", "8,1,1/512,1,1/0/w" + std::to_string(5000000 + it));
    }
    const auto doc = d.s.finish();
    int gemms = 0;
    bool adam = false;
    for (const auto& k : doc.kernels) {
        gemms += k.name == "gemm";
        if (k.name == "adam") {
            adam = true;
            CHECK(k.work.empty());
        }
    }
    CHECK(gemms == 2);
    CHECK(adam);
}
