// libFuzzer target for recorded spaces (`ktune tune --space`, Kernel Tuner cache or T4 JSON, plain
// or gzip): any input is read or refused with an input error naming the file; what is read has
// at least one config that ran, each a member of the space.
#include "fuzz_support.hpp"

#include "ktune/tune/replay.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    constexpr const char* target = "replay_read_fuzz";
    // Through the file reader, so the gzip path (and its inflation cap) is fuzzed too.
    const std::string& path = ktune::fuzz::scratch_file(data, size, ".json.gz");
    try {
        const auto rec = ktune::tune::load_recorded_space(path);
        if (rec.configs.empty() || rec.ok_count() == 0)
            ktune::fuzz::fail(target, "a space without a config that ran");
    } catch (const ktune::error& e) {
        ktune::fuzz::check_refusal(target, e, path);
    }
    return 0;
}
