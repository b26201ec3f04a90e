// `ktune top` rows: long names cut in the middle never print as one row, and the idle-time line
// does not contradict itself (a mostly idle GPU whose idle time is not in launches).
#include "catch.hpp"

#include "ktune/analysis/aggregate.hpp"
#include "ktune/analysis/top.hpp"

#include <set>
#include <string>
#include <vector>

using namespace ktune::analysis;

TEST_CASE("long names are cut in the middle and stay distinct") {
    const std::string head = "void at::native::vectorized_elementwise_kernel<4, "
                             "at::native::CUDAFunctor_add<c10::BFloat16>, ";
    const std::string mid(200, 'x');
    // Same start, same end, different middle: a cut at either end alone would merge them.
    const std::vector<std::string> names = {head + mid + "A" + mid + ">(int, T1, T2)",
                                            head + mid + "B" + mid + ">(int, T1, T2)",
                                            head + "short>(int)", "gemm"};
    const auto shown = distinct_short_names(names, 90);
    REQUIRE(shown.size() == names.size());
    CHECK(std::set<std::string>(shown.begin(), shown.end()).size() == names.size());
    for (const auto& s : shown)
        CHECK(s.size() <= 90);
    CHECK(shown[3] == "gemm");
    CHECK(shown[2].size() == std::min<std::size_t>(names[2].size(), 90));
    // The end of a long name survives the cut (the argument list tells overloads apart).
    CHECK(shown[0].find(">(int, T1, T2)") != std::string::npos);
    CHECK(shown[0].starts_with("void at::native::vectorized_elementwise_kernel<4"));
    // Stable from run to run: the tag depends on the name alone.
    CHECK(distinct_short_names(names, 90) == shown);
    // Names that differ only at the end (the old cut merged these) stay apart without a tag.
    const std::vector<std::string> tails = {head + mid + "(float*)", head + mid + "(double*)"};
    const auto t = distinct_short_names(tails, 90);
    CHECK(t[0] != t[1]);
    CHECK(t[0].find('#') == std::string::npos);
}

TEST_CASE("many colliding names get distinct rows") {
    std::vector<std::string> names;
    for (int i = 0; i < 300; ++i)
        names.push_back(std::string(100, 'a') + std::to_string(i) + std::string(100, 'z'));
    const auto shown = distinct_short_names(names, 40);
    CHECK(std::set<std::string>(shown.begin(), shown.end()).size() == names.size());
}

TEST_CASE("the idle-time line never reads 'busy 0.2 %' with 'not launch-bound' alone") {
    aggregate_report r;
    r.timeline.kernels = 100;
    r.timeline.span_ns = 1'000'000'000;
    r.timeline.busy_ns = 2'000'000;
    r.timeline.busy_pct = 0.2;
    r.timeline.shorter_than_gap = 3;
    r.timeline.launch_bound = false;
    const auto text = format_top(r, 10);
    CHECK(text.find("busy 0.2 %") != std::string::npos);
    CHECK(text.find("not launch-bound") == std::string::npos);
    CHECK(text.find("idles in a few long gaps") != std::string::npos);
    CHECK(text.find("only 3 % of kernels") != std::string::npos);
    r.timeline.busy_pct = 90;
    CHECK(format_top(r, 10).find("launch overhead does not limit the GPU") != std::string::npos);
    r.timeline.launch_bound = true;
    CHECK(format_top(r, 10).find("launch-bound hint") != std::string::npos);
}
