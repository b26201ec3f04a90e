// libFuzzer target for the cache reader. Any input must either parse or throw ktune::error;
// what parses must survive merge → write → read unchanged, both readers must agree on the
// written form, and the index must find every entry it was built from.
#include "cache/cache_json.hpp"
#include "ktune/cache/index.hpp"
#include "ktune/cache/store.hpp"
#include "ktune/core/error.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace {
[[noreturn]] void fail(const char* what) {
    std::fprintf(stderr, "cache_reader_fuzz: %s\n", what);
    std::abort();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace ktune::cache;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::vector<entry> read;
    try {
        read = parse_cache(text, "fuzz");
    } catch (const ktune::error& e) {
        if (e.kind() != ktune::error_kind::input) fail("a reader error that is not 'input'");
        return 0;
    }
    if (detail::have_simdjson()) {
        // The line-by-line fast path and the whole-document parse must agree. (nullopt: simdjson
        // refused the JSON, e.g. an integer beyond 64 bits, and the nlohmann reader answered.)
        try {
            if (auto whole = detail::parse_cache_simdjson(text, "fuzz", false))
                if (*whole != read) fail("the line and whole-document readers disagree");
        } catch (const ktune::error&) {
            fail("the whole-document reader rejects what the line reader accepted");
        }
    }
    const std::vector<entry> canonical = merge(read);
    const std::string written = format_cache(canonical);
    std::vector<entry> back;
    try {
        back = parse_cache(written, "written");
    } catch (const ktune::error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        fail("the writer produced a file the reader rejects");
    }
    if (back != canonical) fail("write → read changed the entries");
    if (detail::parse_cache_nlohmann(written, "written") != canonical)
        fail("the nlohmann and simdjson readers disagree");
    if (format_cache(merge(canonical, read)) != written) fail("merge is not idempotent");
    const ktune::cache::cache_index idx(read);
    for (const auto& e : canonical) {
        const auto r = idx.lookup(prepared_key(e.key));
        if (r.tier != lookup_tier::exact || !r.hit || !(*r.hit == e))
            fail("the index does not find an entry it holds");
    }
    return 0;
}
