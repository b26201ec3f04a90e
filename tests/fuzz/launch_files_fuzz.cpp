// libFuzzer target for the launcher's files: a misses-file line (kernel::parse_miss_line) and a
// capture's capture.json (kernel::read_capture). Any input parses or is refused with an input or
// io error naming its source; a parsed line writes back to a line that parses to the same miss.
#include "fuzz_support.hpp"

#include "ktune/kernel/capture.hpp"
#include "ktune/kernel/launch_misses.hpp"

#include <filesystem>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const auto m = ktune::kernel::parse_miss_line(text, "fuzz.jsonl:1");
        if (ktune::kernel::parse_miss_line(ktune::kernel::miss_line(m), "again") != m)
            ktune::fuzz::fail("launch_files_fuzz", "a miss line that does not round-trip");
    } catch (const ktune::error& e) {
        ktune::fuzz::check_refusal("launch_files_fuzz", e, "fuzz.jsonl:1");
    }
    static const std::filesystem::path dir =
        std::filesystem::path(ktune::fuzz::scratch_file(data, 0, "_capture")).string() + ".d";
    std::filesystem::create_directories(dir);
    const std::string& json = ktune::fuzz::scratch_file(data, size, "_capture.json");
    std::filesystem::copy_file(json, dir / "capture.json",
                               std::filesystem::copy_options::overwrite_existing);
    try {
        (void)ktune::kernel::read_capture(dir);
    } catch (const ktune::error& e) {
        ktune::fuzz::check_refusal("launch_files_fuzz", e, dir.string());
    }
    return 0;
}
