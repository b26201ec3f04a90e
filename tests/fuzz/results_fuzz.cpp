// libFuzzer target for bench results (schema ktune.results), the input of `ktune diff`: any input
// parses or is refused with an input error naming the source; what parses survives
// write → read unchanged and compares with itself without an error.
#include "fuzz_support.hpp"

#include "ktune/guard/compare.hpp"
#include "ktune/guard/report.hpp"
#include "ktune/guard/results.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace ktune::guard;
    constexpr const char* target = "results_fuzz";
    const std::string text(reinterpret_cast<const char*>(data), size);
    results r;
    try {
        r = parse_results(text, "fuzz.json");
    } catch (const ktune::error& e) {
        ktune::fuzz::check_refusal(target, e, "fuzz.json");
        return 0;
    }
    try {
        if (parse_results(results_to_json(r), "written") != r)
            ktune::fuzz::fail(target, "write → read changed the results");
    } catch (const ktune::error& e) {
        ktune::fuzz::fail(target,
                          std::string("the writer produced what the reader refuses: ") + e.what());
    }
    const series_set s = to_series_set(r, "fuzz.json");
    diff_options o;
    o.resamples = 20; // the statistics are tested elsewhere; here only that nothing breaks
    try {
        const auto d = compare(s, s, o);
        if (d.exit_code() == 1 && d.count(verdict::failed) == 0)
            ktune::fuzz::fail(target, "a run compared with itself is slower");
        for (auto f : {report_format::text, report_format::markdown, report_format::json,
                       report_format::junit})
            (void)render(d, f, true);
    } catch (const ktune::error& e) {
        ktune::fuzz::check_refusal(target, e, "fuzz.json");
    }
    return 0;
}
