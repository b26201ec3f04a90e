// libFuzzer target for bench suites (`ktune bench suite.json`): any input parses or is refused
// with an input error naming the source.
#include "fuzz_support.hpp"

#include "ktune/guard/suite.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        (void)ktune::guard::parse_suite(text, "fuzz.json");
    } catch (const ktune::error& e) {
        ktune::fuzz::check_refusal("suite_fuzz", e, "fuzz.json");
    }
    return 0;
}
