// .ktrace reader against damaged and hostile files: every length field is checked before it is
// trusted, every walk over chunks advances, names come out as valid UTF-8, and records lost to a
// skipped chunk are damage (docs/formats.md#ktrace).
#include "catch.hpp"
#include "trace/utf8.hpp"
#include "trace_collector.hpp"

#include "ktune/core/error.hpp"
#include "ktune/trace/trace_file.hpp"

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

using namespace ktune;
using namespace ktune::trace;

namespace {

std::string temp_path(const char* name) {
    return (std::filesystem::temp_directory_path() /
            (std::string("ktune_hostile_") + std::to_string(::getpid()) + "_" + name))
        .string();
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

void spit(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

struct chunk_at {
    std::size_t offset;
    std::uint32_t type;
};

std::vector<chunk_at> chunks(const std::string& bytes) {
    std::vector<chunk_at> out;
    for (std::size_t off = 16; off + 24 <= bytes.size();) {
        std::uint32_t type;
        std::uint64_t stored;
        std::memcpy(&type, bytes.data() + off, 4);
        std::memcpy(&stored, bytes.data() + off + 8, 8);
        out.push_back({off, type});
        off += 24 + stored;
    }
    return out;
}

std::size_t first_of(const std::string& bytes, std::uint32_t type) {
    for (const auto& c : chunks(bytes))
        if (c.type == type) return c.offset;
    FAIL("no chunk of type " << type);
    return 0;
}

template <class T>
void poke(std::string& bytes, std::size_t at, T v) {
    std::memcpy(bytes.data() + at, &v, sizeof v);
}

// 100 kernels of two names, footer counting them; returns the file's bytes.
std::string good_trace(const std::string& path,
                       const std::vector<std::string>& names = {"_Z1av", "_Z1bv"}) {
    {
        trace_writer w(path, trace_environment{});
        for (const auto& n : names)
            w.intern(n);
        std::vector<kernel_record> ks(100);
        for (std::size_t i = 0; i < ks.size(); ++i) {
            ks[i].name_id = static_cast<std::uint32_t>(i % names.size());
            ks[i].start_ns = 1000 * i;
            ks[i].end_ns = 1000 * i + 500;
        }
        w.write(std::span(ks));
        trace_counters c;
        c.kernels = ks.size();
        w.finish(trace_environment{}, c);
    }
    return slurp(path);
}

read_status read_all(const std::string& path, ktune::test::trace_collector& v) {
    trace_reader r(path);
    return r.read(v);
}

constexpr std::uint32_t kernels_chunk = 3;

} // namespace

TEST_CASE("a negative chunk size ends the pass with damage, in the reader and the metrics walk") {
    const auto path = temp_path("negative.ktrace");
    auto bytes = good_trace(path);
    const auto at = first_of(bytes, kernels_chunk);
    poke(bytes, at + 8, std::uint64_t(-24)); // stored = -24: back onto its own header
    spit(path, bytes);
    ktune::test::trace_collector v;
    const auto st = read_all(path, v);
    CHECK_FALSE(st.complete);
    CHECK(st.damage.find(path) != std::string::npos);
    CHECK(st.damage.find("byte " + std::to_string(at)) != std::string::npos);
    CHECK(read_metrics_chunk(path).empty()); // returns: the walk cannot go backwards
    std::filesystem::remove(path);
}

TEST_CASE("counts and sizes beyond what the block can hold are damage, not allocations") {
    const auto path = temp_path("counts.ktrace");
    const auto good = good_trace(path);
    const auto at = first_of(good, kernels_chunk);
    struct variant {
        const char* what;
        std::size_t field;
        std::uint64_t value;
        const char* says;
    };
    for (const variant& c : {variant{"count", 4, 0x7fffffff, "2147483647 records"},
                             variant{"raw size", 16, std::uint64_t{1} << 32, "records in"},
                             variant{"stored size", 8, std::uint64_t{1} << 40, "remain"}}) {
        INFO(c.what);
        auto bytes = good;
        if (c.field == 4)
            poke(bytes, at + 4, static_cast<std::uint32_t>(c.value));
        else
            poke(bytes, at + c.field, c.value);
        spit(path, bytes);
        ktune::test::trace_collector v;
        const auto st = read_all(path, v);
        CHECK_FALSE(st.complete);
        CHECK(v.kernels.empty());
        CHECK(st.damage.find(c.says) != std::string::npos);
        CHECK(st.damage.find("byte " + std::to_string(at)) != std::string::npos);
    }
    std::filesystem::remove(path);
}

TEST_CASE("a skipped chunk of an unknown type may not hide records the footer counts") {
    const auto path = temp_path("unknown.ktrace");
    auto bytes = good_trace(path);
    poke(bytes, first_of(bytes, kernels_chunk), std::uint32_t{11});
    spit(path, bytes);
    ktune::test::trace_collector v;
    const auto st = read_all(path, v);
    CHECK_FALSE(st.complete);
    CHECK(st.damage.find("100 kernels (0 read)") != std::string::npos);

    // A newer minor version's chunk that holds no counted records is skipped by its length.
    bytes = good_trace(path);
    const auto footer = first_of(bytes, 9);
    std::string extra(24 + 5, '\0');
    poke(extra, 0, std::uint32_t{12});
    poke(extra, 8, std::uint64_t{5});
    bytes.insert(footer, extra);
    spit(path, bytes);
    ktune::test::trace_collector v2;
    const auto st2 = read_all(path, v2);
    CHECK(st2.complete);
    CHECK(v2.kernels.size() == 100);
    std::filesystem::remove(path);
}

TEST_CASE("a record naming a string the trace never defined is damage") {
    const auto path = temp_path("names.ktrace");
    {
        trace_writer w(path, trace_environment{});
        w.intern("_Z1av");
        kernel_record k;
        k.name_id = 4000000000u; // sized a table of 4 billion names in readers that trusted it
        k.start_ns = 1, k.end_ns = 2;
        w.write(std::span(&k, 1));
        w.finish(trace_environment{}, {});
    }
    ktune::test::trace_collector v;
    const auto st = read_all(path, v);
    CHECK_FALSE(st.complete);
    CHECK(v.kernels.empty());
    CHECK(st.damage.find("does not decode") != std::string::npos);
    std::filesystem::remove(path);
}

TEST_CASE("names that are not UTF-8 are repaired, never refused") {
    const auto path = temp_path("utf8.ktrace");
    (void)good_trace(path, {"bad\xff", "cut\xe2\x82"});
    ktune::test::trace_collector v;
    trace_reader r(path);
    CHECK(r.read(v).complete);
    CHECK(r.string(0).mangled == "bad\xEF\xBF\xBD");
    CHECK(r.string(1).demangled == "cut\xEF\xBF\xBD\xEF\xBF\xBD");
    std::filesystem::remove(path);
}

TEST_CASE("a damage message is valid UTF-8 even when it quotes the damaged bytes") {
    const auto path = temp_path("footer_utf8.ktrace");
    auto bytes = good_trace(path);
    const auto footer = first_of(bytes, 9);
    bytes[footer + 24 + 2] = '\xff'; // inside the footer JSON's first key
    spit(path, bytes);
    ktune::test::trace_collector v;
    const auto st = read_all(path, v);
    CHECK_FALSE(st.complete);
    CHECK(st.damage.find("footer") != std::string::npos);
    CHECK(detail::valid_utf8(st.damage) == st.damage);
    std::filesystem::remove(path);
}

TEST_CASE("valid_utf8 keeps valid text and replaces each invalid byte") {
    using detail::valid_utf8;
    CHECK(valid_utf8("plain") == "plain");
    CHECK(valid_utf8("\xC3\xA9t\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80") ==
          "\xC3\xA9t\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
    CHECK(valid_utf8("\xC0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD");                 // overlong NUL
    CHECK(valid_utf8("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"); // surrogate
    CHECK(valid_utf8("\xF4\x90\x80\x80").size() == 12);                          // > U+10FFFF
    CHECK(valid_utf8("a\xE2\x82") == "a\xEF\xBF\xBD\xEF\xBF\xBD");               // cut at the end
    CHECK(valid_utf8(std::string("\0x", 2)) == std::string("\0x", 2));
}

TEST_CASE("scan_trace reports a cut trace with its file and offset") {
    const auto path = temp_path("scan.ktrace");
    const auto bytes = good_trace(path);
    spit(path, bytes.substr(0, bytes.size() - 10));
    const auto st = scan_trace(path);
    CHECK_FALSE(st.complete);
    CHECK(st.damage.find(path) != std::string::npos);
    CHECK(st.damage.find("byte") != std::string::npos);
    std::filesystem::remove(path);
}
