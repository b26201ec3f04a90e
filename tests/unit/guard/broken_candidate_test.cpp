// `ktune diff` never passes a broken candidate: failed or missing keys fail the gate, samples
// that cannot be timings are input errors naming the key, a zero baseline spoils one key only,
// and "nothing could be judged" has its own exit code (3), apart from bad input (2).
#include "catch.hpp"

#include "ktune/core/error.hpp"
#include "ktune/guard/compare.hpp"
#include "ktune/guard/report.hpp"
#include "ktune/guard/results.hpp"

#include <functional>
#include <string>

using namespace ktune::guard;

namespace {

std::vector<double> around(double m, int n = 20) {
    std::vector<double> v;
    for (int i = 0; i < n; ++i)
        v.push_back(m * (1 + 0.001 * (i % 5)));
    return v;
}

series key(std::string name, std::vector<double> s) {
    series x;
    x.name = std::move(name);
    x.unit = "us";
    x.samples = std::move(s);
    return x;
}

series_set bench_side(std::vector<series> items) {
    series_set s;
    s.source = "side.json";
    s.items = std::move(items);
    s.every_key_expected = true;
    return s;
}

const key_diff& find(const diff_report& r, const std::string& k) {
    for (const auto& d : r.keys)
        if (d.key == k) return d;
    FAIL("no key " << k);
    return r.keys.front();
}

std::string input_error(const std::function<void()>& f) {
    try {
        f();
    } catch (const ktune::error& e) {
        CHECK(e.kind() == ktune::error_kind::input);
        return e.what();
    }
    FAIL("no input error");
    return "";
}

std::string results_text(const std::string& entries) {
    return R"({"schema": "ktune.results", "version": "1.0.0", "entries": [)" + entries + "]}";
}

} // namespace

TEST_CASE("a failed candidate entry fails the gate instead of reading as removed") {
    const auto base = bench_side({key("a", around(10)), key("b", around(20))});
    auto cand = bench_side({key("a", around(10))});
    cand.broken.push_back({"b", "failed", "exit status 139"});
    const auto r = compare(base, cand);
    CHECK(find(r, "b").result == verdict::failed);
    CHECK(find(r, "b").why == cause::failed_entry);
    CHECK(find(r, "b").detail.find("exit status 139") != std::string::npos);
    CHECK(r.exit_code() == 1);
    CHECK(r.outcome() == "regression");
    CHECK(render(r, report_format::junit).find("type=\"failed\"") != std::string::npos);
}

TEST_CASE("a bench key missing from the candidate fails the gate; a trace kernel may go") {
    const auto base = bench_side({key("a", around(10)), key("b", around(20))});
    const auto cand = bench_side({key("a", around(10))});
    const auto r = compare(base, cand);
    CHECK(find(r, "b").result == verdict::failed);
    CHECK(find(r, "b").why == cause::missing_key);
    CHECK(r.exit_code() == 1);

    series_set tb = base, tc = cand; // traces: kernels come and go with the code
    tb.every_key_expected = tc.every_key_expected = false;
    CHECK(compare(tb, tc).exit_code() == 0);
}

TEST_CASE("unavailable on both sides is no change; unavailable in the candidate only fails") {
    auto base = bench_side({key("a", around(10))});
    auto cand = bench_side({key("a", around(10))});
    base.broken.push_back({"gpu_op", "unavailable", "no GPU"});
    cand.broken.push_back({"gpu_op", "unavailable", "no GPU"});
    CHECK(compare(base, cand).exit_code() == 0);
    base.broken.clear();
    base.items.push_back(key("gpu_op", around(5)));
    CHECK(compare(base, cand).exit_code() == 1);
}

TEST_CASE("samples that cannot be timings are input errors naming the side and key") {
    const auto base = bench_side({key("a", around(10))});
    for (const auto& bad : {std::vector<double>(20, 0.0), std::vector<double>{1, 2, -3, 4}}) {
        const auto cand = bench_side({key("a", bad)});
        const auto msg = input_error([&] { (void)compare(base, cand); });
        CHECK(msg.find("side.json (candidate)") != std::string::npos);
        CHECK(msg.find("key 'a'") != std::string::npos);
    }
    CHECK(sample_problem({0, 0}) == "every sample is 0: nothing was measured");
    CHECK(sample_problem({0, 1}).empty());
    CHECK(sample_problem({1, std::numeric_limits<double>::infinity()}).find("finite") !=
          std::string::npos);
}

TEST_CASE("a zero baseline median spoils that key only") {
    std::vector<double> mostly_zero(20, 0.0);
    mostly_zero[19] = 1;
    const auto base = bench_side({key("z", mostly_zero), key("a", around(10))});
    const auto cand = bench_side({key("z", around(1)), key("a", around(10))});
    const auto r = compare(base, cand);
    CHECK(find(r, "z").result == verdict::inconclusive);
    CHECK(find(r, "z").why == cause::zero_baseline);
    CHECK(find(r, "a").result == verdict::same);
    CHECK(r.exit_code() == 0);
}

TEST_CASE("too few samples everywhere is inconclusive: exit 3, outcome in the JSON") {
    const auto base = bench_side({key("a", around(10, 3))});
    const auto r = compare(base, base);
    CHECK(r.exit_code() == 3);
    CHECK(render(r, report_format::json).find("\"outcome\": \"inconclusive\"") !=
          std::string::npos);
}

TEST_CASE("a results file names duplicate keys at both positions, bad samples by key") {
    const std::string e0 = R"({"name": "k", "shape": "8x8", "samples": [1, 2]})";
    const std::string e1 = R"({"name": "j", "samples": [1, 2]})";
    auto msg =
        input_error([&] { (void)parse_results(results_text(e0 + "," + e1 + "," + e0), "r.json"); });
    CHECK(msg.find("r.json") != std::string::npos);
    CHECK(msg.find("entries[2]") != std::string::npos);
    CHECK(msg.find("entries[0]") != std::string::npos);
    CHECK(msg.find("k 8x8") != std::string::npos);

    msg = input_error([&] {
        (void)parse_results(results_text(R"({"name": "neg", "samples": [1, -2]})"), "r.json");
    });
    CHECK(msg.find("key 'neg'") != std::string::npos);
    msg = input_error([&] {
        (void)parse_results(results_text(R"({"name": "big", "samples": [1, 1e999]})"), "r.json");
    });
    CHECK(msg.find("r.json") != std::string::npos);
    CHECK(msg.find("samples") != std::string::npos);
}

TEST_CASE("failed entries of a results file reach the comparison") {
    const auto r = parse_results(
        results_text(
            R"({"name": "ok", "samples": [1, 2]}, {"name": "x", "status": "failed", "detail": "boom"})"),
        "r.json");
    const auto s = to_series_set(r, "r.json");
    CHECK(s.every_key_expected);
    REQUIRE(s.broken.size() == 1);
    CHECK(s.broken[0] == broken_entry{"x", "failed", "boom"});
}
