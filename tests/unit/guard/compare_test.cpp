// Verdict rules of guard::compare and the four report formats (golden files).
#include "catch.hpp"

#include "ktune/core/error.hpp"
#include "ktune/guard/compare.hpp"
#include "ktune/guard/report.hpp"
#include "ktune/guard/results.hpp"
#include "ktune/guard/stats.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

using namespace ktune::guard;

namespace {

const std::string data = std::string(KTUNE_TEST_DATA_DIR) + "/guard/";

// n samples around m with a small deterministic spread (~0.5 %) and a skewed tail.
std::vector<double> noisy(double m, int n, std::uint64_t seed, double scale = 1.0) {
    splitmix64 g(seed);
    std::vector<double> v;
    for (int i = 0; i < n; ++i) {
        const double u = g.uniform();
        v.push_back(m * scale * (1 + 0.005 * u + (u > 0.9 ? 0.02 * g.uniform() : 0)));
    }
    return v;
}

series key(std::string name, std::vector<double> s, std::string shape = "") {
    series x;
    x.name = std::move(name);
    x.shape = std::move(shape);
    x.unit = "us";
    x.samples = std::move(s);
    return x;
}

const key_diff& find(const diff_report& r, const std::string& k) {
    for (const auto& d : r.keys)
        if (d.key == k) return d;
    FAIL("key " << k << " missing");
    return r.keys.front();
}

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace

TEST_CASE("verdicts: slower, faster, same, below threshold, inconclusive") {
    series_set base, cand;
    base.items = {key("slow", noisy(100, 30, 1)), key("fast", noisy(100, 30, 2)),
                  key("same", noisy(100, 30, 3)), key("small", noisy(100, 30, 4)),
                  key("few", noisy(100, 5, 5)),   key("gone", noisy(100, 30, 6))};
    cand.items = {key("slow", noisy(100, 30, 11, 1.08)), key("fast", noisy(100, 30, 12, 0.9)),
                  key("same", noisy(100, 30, 13)),       key("small", noisy(100, 30, 14, 1.02)),
                  key("few", noisy(100, 30, 15)),        key("new", noisy(100, 30, 16))};
    const auto r = compare(base, cand);
    CHECK(find(r, "slow").result == verdict::slower);
    CHECK(find(r, "slow").why == cause::kernel_time);
    CHECK(find(r, "slow").rel == Approx(0.08).margin(0.01));
    CHECK(find(r, "fast").result == verdict::faster);
    CHECK(find(r, "same").result == verdict::same);
    // 2 % is significant with this little noise, but below the 5 % minimum effect.
    CHECK(find(r, "small").p_value < 1e-6);
    CHECK(find(r, "small").result == verdict::same);
    CHECK(find(r, "few").result == verdict::inconclusive);
    CHECK(find(r, "few").why == cause::too_few_samples);
    CHECK(find(r, "new").why == cause::new_kernel);
    CHECK(find(r, "gone").why == cause::removed_kernel);
    CHECK(r.keys.front().key == "slow"); // slower first
    CHECK(r.exit_code() == 1);
    // A 10 % threshold no longer counts 8 %.
    CHECK(compare(base, cand, {.threshold = 0.10}).count(verdict::slower) == 0);
    // Same inputs, same report.
    CHECK(compare(base, cand) == r);
}

TEST_CASE("a quiet kernel made exactly T slower is slower, a quiet 4 % stays same") {
    // As measured on an H200 (bench/guard/gpu_step.sh): 5 % more loop iterations made a
    // 708 us kernel +4.99 % [4.98, 5.00] slower; launch-to-launch noise ~0.05 %.
    const auto quiet = [](double m, double scale, std::uint64_t seed) {
        splitmix64 g(seed);
        std::vector<double> v;
        for (int i = 0; i < 40; ++i)
            v.push_back(m * scale * (1 + 0.0005 * g.uniform()));
        return v;
    };
    series_set base, cand;
    base.items = {key("fma", quiet(708.2, 1, 1)), key("four", quiet(100, 1, 2)),
                  key("fast", quiet(100, 1, 3))};
    cand.items = {key("fma", quiet(708.2, 1.0499, 4)), key("four", quiet(100, 1.04, 5)),
                  key("fast", quiet(100, 1 / 1.0499, 6))};
    const auto r = compare(base, cand);
    CHECK(find(r, "fma").rel < 0.05);
    CHECK(find(r, "fma").rel_hi < 0.05);
    CHECK(find(r, "fma").result == verdict::slower);
    CHECK(find(r, "fma").why == cause::kernel_time);
    CHECK(find(r, "fast").result == verdict::faster);
    CHECK(find(r, "four").result == verdict::same); // real, but under the 5 % minimum effect
}

TEST_CASE("noise too large to rule out the threshold is inconclusive, not same") {
    series_set base, cand;
    splitmix64 g(9);
    std::vector<double> a, b;
    for (int i = 0; i < 10; ++i) {
        a.push_back(100 * (1 + 0.3 * g.uniform()));
        b.push_back(100 * (1 + 0.3 * g.uniform()));
    }
    base.items = {key("k", a)};
    cand.items = {key("k", b)};
    const auto r = compare(base, cand);
    CHECK(r.keys.at(0).result == verdict::inconclusive);
    CHECK(r.keys.at(0).why == cause::noisy);
    CHECK(r.exit_code() == 3);
}

TEST_CASE("causes: launch count, launch shape, environment, new kernel with GPU share") {
    series_set base, cand;
    auto counted = key("k_count", noisy(50, 30, 1));
    counted.launches_per_run = 100;
    auto counted2 = key("k_count", noisy(50, 30, 2));
    counted2.launches_per_run = 130;
    auto shaped = key("k_shape", noisy(50, 30, 3), "grid(128,1,1) block(256,1,1)");
    auto shaped2 = key("k_shape", noisy(50, 30, 4, 1.1), "grid(256,1,1) block(128,1,1)");
    auto big_new = key("k_new", noisy(50, 30, 5));
    big_new.gpu_time_share = 0.2;
    base.items = {counted, shaped};
    cand.items = {counted2, shaped2, big_new};
    auto r = compare(base, cand);
    CHECK(find(r, "k_count").result == verdict::slower);
    CHECK(find(r, "k_count").why == cause::launch_count);
    const key_diff s = find(r, "k_shape grid(256,1,1) block(128,1,1)");
    CHECK(s.result == verdict::slower);
    CHECK(s.why == cause::launch_shape);
    CHECK(s.base_shape == "grid(128,1,1) block(256,1,1)");
    CHECK(find(r, "k_new").result == verdict::slower);
    CHECK(find(r, "k_new").why == cause::new_kernel);

    cand.env.driver = "575.57.08";
    base.env.driver = "580.159.04";
    cand.items = {counted2, key("k_shape", noisy(50, 30, 6, 1.1), shaped.shape)};
    r = compare(base, cand);
    CHECK(r.environment_differences.size() == 1);
    CHECK(find(r, shaped.key()).why == cause::environment);
}

TEST_CASE("pooling several baseline runs") {
    const auto a = read_results(data + "base.json");
    const auto b = read_results(data + "base_run2.json");
    const auto pooled = pool({to_series_set(a, "a"), to_series_set(b, "b")});
    REQUIRE(pooled.items.size() == 5);
    CHECK(pooled.items[0].samples.size() == 60);
    CHECK(pooled.items[0].runs == 2);
    CHECK(pooled.items[2].launches_per_run == Approx(10));
    CHECK(pooled.source == "a, b");
    CHECK(load_series({data + "base.json", data + "base_run2.json"}).items == pooled.items);
}

TEST_CASE("options are checked") {
    series_set s;
    CHECK_THROWS_AS(compare(s, s, {.threshold = 0}), ktune::error);
    CHECK_THROWS_AS(compare(s, s, {.alpha = 1.5}), ktune::error);
    CHECK(compare(s, s).exit_code() == 3); // nothing could be judged
}

TEST_CASE("reports match the golden files") {
    auto base = load_series({data + "base.json"});
    auto cand = load_series({data + "cand_slower.json"});
    base.source = "base.json";
    cand.source = "cand_slower.json";
    const auto r = compare(base, cand);
    const bool update = std::getenv("KTUNE_UPDATE_GOLDEN") != nullptr;
    for (const auto& [fmt, file] :
         {std::pair{report_format::text, "diff.txt"}, std::pair{report_format::markdown, "diff.md"},
          std::pair{report_format::json, "diff.json"},
          std::pair{report_format::junit, "diff.junit.xml"}}) {
        const std::string got = render(r, fmt);
        const std::string path = data + "golden/" + file;
        if (update) std::ofstream(path) << got;
        INFO("golden " << path << " (KTUNE_UPDATE_GOLDEN=1 rewrites it)");
        CHECK(got == slurp(path));
    }
    CHECK(parse_report_format("md") == report_format::markdown);
    CHECK_THROWS_AS(parse_report_format("html"), ktune::error);
}
