// libFuzzer target for the .ktrace reader and the metrics-chunk walk. Any input must either be
// refused by the constructor with an input error naming the file, or read to the end or to
// damage that names the file; never a throw from read(), a hang, or an allocation sized by a
// length field. What the reader hands out must keep its promises: names valid UTF-8, every
// record's name id defined.
#include "fuzz_support.hpp"
#include "trace/utf8.hpp"

#include "ktune/trace/trace_file.hpp"

namespace {

constexpr const char* target = "trace_reader_fuzz";

struct check_names final : ktune::trace::trace_visitor {
    const ktune::trace::trace_reader* reader = nullptr;
    std::uint64_t records = 0;
    void on_kernels(std::span<const ktune::trace::kernel_record> ks) override {
        for (const auto& k : ks)
            if (k.name_id >= reader->strings().size())
                ktune::fuzz::fail(target, "a kernel names a string the trace did not define");
        records += ks.size();
    }
    void on_nvtx(std::span<const ktune::trace::nvtx_record> rs) override {
        for (const auto& r : rs)
            if (r.name_id >= reader->strings().size() || r.domain_id >= reader->strings().size())
                ktune::fuzz::fail(target, "an NVTX range names an undefined string");
        records += rs.size();
    }
    void on_memcpys(std::span<const ktune::trace::memcpy_record> rs) override {
        records += rs.size();
    }
    void on_memsets(std::span<const ktune::trace::memset_record> rs) override {
        records += rs.size();
    }
    void on_syncs(std::span<const ktune::trace::sync_record> rs) override { records += rs.size(); }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string& path = ktune::fuzz::scratch_file(data, size, ".ktrace");
    try {
        ktune::trace::trace_reader reader(path);
        check_names v;
        v.reader = &reader;
        ktune::trace::read_status st;
        try {
            st = reader.read(v);
        } catch (const std::exception& e) {
            ktune::fuzz::fail(target, std::string("read() threw: ") + e.what());
        }
        if (st.complete != st.damage.empty())
            ktune::fuzz::fail(target, "complete and damage disagree");
        if (!st.complete && st.damage.find(path) == std::string::npos)
            ktune::fuzz::fail(target, "damage that does not name the file: " + st.damage);
        if (ktune::trace::detail::valid_utf8(st.damage) != st.damage)
            ktune::fuzz::fail(target,
                              "a damage message that is not valid UTF-8 (it goes into JSON)");
        if (st.bytes_read > size) ktune::fuzz::fail(target, "read past the end of the file");
        for (const auto& s : reader.strings())
            if (ktune::trace::detail::valid_utf8(s.mangled) != s.mangled ||
                ktune::trace::detail::valid_utf8(s.demangled) != s.demangled)
                ktune::fuzz::fail(target, "a name that is not valid UTF-8");
    } catch (const ktune::error& e) {
        ktune::fuzz::check_refusal(target, e, path);
    }
    try {
        (void)ktune::trace::read_metrics_chunk(path);
    } catch (const ktune::error& e) {
        ktune::fuzz::check_refusal(target, e, path);
    }
    return 0;
}
