// libFuzzer target for kernel specs (`ktune kernel check spec.json`): any input loads or is
// refused with an input error naming the spec; a loaded spec with a small space goes through the
// check (without NVRTC) and again only refuses with an input error.
#include "fuzz_support.hpp"

#include "ktune/kernel/check.hpp"

#ifndef KTUNE_TEST_DATA_DIR
#define KTUNE_TEST_DATA_DIR "tests/data" // the standalone fuzz build runs from the checkout
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // Beside the corpus's k.cu, so specs that name it get past the source check.
    static const std::string path = KTUNE_TEST_DATA_DIR "/kernel/bad/fuzz.json";
    std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const auto s = ktune::kernel::parse_spec(std::move(text), path);
        std::uint64_t product = 1;
        for (const auto& p : s.parameters)
            product *= p.values.size() ? p.values.size() : 1;
        if (product > 4096) return 0; // large spaces are slow, not interesting
        ktune::kernel::check_options o;
        o.compile = false;
        const auto r = ktune::kernel::check_spec(s, o);
        if (r.counts.valid == 0) ktune::fuzz::fail("kernel_spec_fuzz", "a check with no config");
    } catch (const ktune::error& e) {
        ktune::fuzz::check_refusal("kernel_spec_fuzz", e, "fuzz.json");
    }
    return 0;
}
