// libFuzzer target for the metrics chunk's document (ktune.kernel_metrics JSON, also read by
// `ktune roofline metrics.json`): any input parses or is refused with an input error naming the
// source; what parses survives to_json → parse unchanged.
#include "fuzz_support.hpp"

#include "ktune/metrics/kernel_metrics.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    constexpr const char* target = "metrics_chunk_fuzz";
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    ktune::metrics::kernel_metrics_doc doc;
    try {
        doc = ktune::metrics::parse_kernel_metrics(text, "fuzz.json");
    } catch (const ktune::error& e) {
        ktune::fuzz::check_refusal(target, e, "fuzz.json");
        return 0;
    }
    try {
        (void)ktune::metrics::parse_kernel_metrics(ktune::metrics::to_json(doc), "written");
    } catch (const std::exception& e) {
        ktune::fuzz::fail(target,
                          std::string("the writer produced what the reader refuses: ") + e.what());
    }
    return 0;
}
