// libFuzzer target for tune plans (`ktune tune --plan plan.json`): any input parses or is refused
// with an input error naming the source; every parsed entry has an op and a shape.
#include "fuzz_support.hpp"

#include "ktune/tune/tuner_plan.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        for (const auto& e : ktune::tune::parse_tune_plan(text, "fuzz.json"))
            if (e.op.empty() || e.shape.empty())
                ktune::fuzz::fail("tune_plan_fuzz", "an entry without an op or a shape");
    } catch (const ktune::error& e) {
        ktune::fuzz::check_refusal("tune_plan_fuzz", e, "fuzz.json");
    }
    return 0;
}
