#include "cache/cache_json.hpp"
#include "cache_test_util.hpp"
#include "catch.hpp"

#include "ktune/core/error.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

using namespace ktune::cache;
using cache_test::key;
using cache_test::make;

namespace {
std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}
void spit(const std::filesystem::path& p, const std::string& s) {
    std::ofstream(p, std::ios::binary) << s;
}
std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const ktune::error& e) {
        return e.what();
    }
    return "(no error)";
}
const std::string data = KTUNE_TEST_DATA_DIR "/cache/";
} // namespace

TEST_CASE("a cache file round-trips through both readers") {
    auto e = make(key({4096, 4096}), 128, 812.25);
    e.cfg = ktune::config{{"block", std::int64_t{128}},
                          {"ratio", 2.0},
                          {"neg", std::int64_t{-3}},
                          {"swizzle", true},
                          {"layout", std::string("row\"major\\\n\x01")}};
    e.origin.host = "nöde-ü";
    std::vector<entry> es{e, make(key({1024}, "softmax"), 4, 5.125)};
    const std::string text = format_cache(es);
    const auto canonical = merge(es);
    CHECK(parse_cache(text, "t") == canonical);
    CHECK(detail::parse_cache_nlohmann(text, "t") == canonical);
    // 2.0 must stay a double, not come back as the integer 2.
    CHECK(std::holds_alternative<double>(*parse_cache(text, "t")[0].cfg.find("ratio")));
    CHECK(format_cache(parse_cache(text, "t")) == text);
}

TEST_CASE("the bundled example file loads, in order, with provenance") {
    const auto es = read_cache(data + "small.json");
    REQUIRE(es.size() == 4);
    CHECK(es[3].key.op == "softmax");
    CHECK(es[3].cfg.get<std::string>("layout") == "rowmajor");
    CHECK(es[3].cfg.get<double>("alpha") == 0.5);
    CHECK(es[1].origin.gpu_uuid == "GPU-11111111-2222-3333-4444-555555555555");
    CHECK(es[1].origin.sm_mhz == 1980);
    CHECK(es[1].time.samples == 25);
    CHECK(es == detail::parse_cache_nlohmann(slurp(data + "small.json"), "small.json"));
    CHECK(verify(data + "small.json").empty());
}

TEST_CASE("corrupted, truncated and foreign files give a clear error") {
    const auto truncated = error_of([] { (void)read_cache(data + "truncated.json"); });
    CHECK(truncated.find("truncated.json") != std::string::npos);
    CHECK(truncated.find("byte") != std::string::npos);
    CHECK(truncated.find("truncated") != std::string::npos);
    const auto field = error_of([] { (void)read_cache(data + "bad_field.json"); });
    CHECK(field.find("$.entries[3].toolkit") != std::string::npos);
    CHECK(field.find("expected an integer") != std::string::npos);
    const auto major = error_of([] { (void)read_cache(data + "future_major.json"); });
    CHECK(major.find("2.0.0") != std::string::npos);
    CHECK(major.find("upgrade") != std::string::npos);
    CHECK_THROWS_AS(parse_cache(R"({"schema":"ktune.trace","version":"1.0.0","entries":[]})", "x"),
                    ktune::error);
    CHECK_THROWS_AS(parse_cache("[]", "x"), ktune::error);
    CHECK_THROWS_AS(parse_cache("", "x"), ktune::error);
    CHECK(read_cache("/nonexistent/dir/cache.json").empty());
}

TEST_CASE("store merges, reports, and never overwrites a corrupted file") {
    cache_test::temp_dir dir;
    const auto file = dir.path / "sub" / "cache.json";
    auto r = store(file, make(key({1024}), 1, 10.0));
    CHECK(r.added == 1);
    CHECK(r.total == 1);
    r = store(file, make(key({1024}), 2, 5.0)); // clearly faster: replaces
    CHECK(r.replaced == 1);
    r = store(file, make(key({1024}), 3, 20.0)); // clearly slower: kept out
    CHECK(r.kept == 1);
    r = store(file, std::vector<entry>{make(key({2048}), 4, 1.0), make(key({4096}), 5, 1.0)});
    CHECK(r.added == 2);
    CHECK(r.total == 3);
    const cache_index idx = cache_index::load(file);
    CHECK(idx.find(prepared_key(key({1024})))->cfg.get<int>("block") == 2);
    CHECK_FALSE(std::filesystem::exists(file.string() + ".tmp"));

    // An invalid entry is refused before the file is touched.
    auto bad = make(key({8}), 1, 10.0);
    bad.time.ci_low_us = 11.0;
    CHECK_THROWS_AS(store(file, bad), ktune::error);

    const std::string good = slurp(file);
    spit(file, good.substr(0, good.size() / 2));
    const auto err = error_of([&] { store(file, make(key({8192}), 6, 1.0)); });
    CHECK(err.find(file.string()) != std::string::npos);
    CHECK(slurp(file) == good.substr(0, good.size() / 2)); // left exactly as it was
}

TEST_CASE("remove and verify") {
    cache_test::temp_dir dir;
    const auto file = dir.path / "cache.json";
    store(file, std::vector<entry>{make(key({1}), 1, 1.0), make(key({2}), 2, 1.0),
                                   make(key({2}, "softmax"), 3, 1.0)});
    key_filter f;
    f.op = "gemm";
    f.bucket = std::vector<std::int64_t>{2};
    CHECK(remove(file, f) == 1);
    CHECK(read_cache(file).size() == 2);
    CHECK(remove(file, f) == 0);
    CHECK(verify(file).empty());

    // Duplicates and bad measurements are what verify reports (a hand-edited file).
    auto bad = make(key({1}), 2, 1.0);
    bad.time.samples = 0;
    std::string text = R"({"schema":"ktune.cache","version":"1.0.0","entries":[)";
    detail::append_entry_json(text, make(key({1}), 1, 1.0));
    text += ",";
    detail::append_entry_json(text, bad);
    text += "]}";
    spit(file, text);
    const auto issues = verify(file);
    REQUIRE(issues.size() == 2);
    CHECK(issues[0].index == 1);
    CHECK(issues[0].problem.find("duplicate") != std::string::npos);
    CHECK(issues[1].problem.find("sample count") != std::string::npos);
    CHECK_THROWS_AS(verify(dir.path / "missing.json"), ktune::error);
}

TEST_CASE("the line-by-line reader and the whole-document reader agree; other layouts still load") {
    std::vector<entry> es;
    for (int i = 0; i < 50; ++i)
        es.push_back(make(key({i, 2 * i}), i, 1.0 + i));
    const std::string text = format_cache(es);
    const auto lines = parse_cache(text, "t");
    const auto whole = detail::parse_cache_simdjson(text, "t", false);
    if (detail::have_simdjson()) {
        REQUIRE(whole.has_value());
        CHECK(*whole == lines);
    }
    CHECK(lines == merge(es));
    // Pretty-printed by another tool (not one entry per line): the whole-document path reads it.
    auto doc = nlohmann::ordered_json::parse(text);
    CHECK(parse_cache(doc.dump(2), "pretty") == lines);
    CHECK(parse_cache(doc.dump(), "compact") == lines);
    // A broken line is diagnosed like any broken file: byte offset, nothing half-read.
    std::string broken = text;
    broken[broken.find("\"median_us\"", broken.size() / 2) + 12] = '@';
    const auto err = error_of([&] { (void)parse_cache(broken, "broken.json"); });
    CHECK(err.find("broken.json") != std::string::npos);
    CHECK(err.find("byte") != std::string::npos);
}

TEST_CASE("a large file parses in chunks and reports the first bad entry like a serial pass") {
    std::vector<entry> es;
    for (int i = 0; i < 20000; ++i)
        es.push_back(make(key({i}), i, 1.0 + i));
    const std::string text = format_cache(es);
    CHECK(parse_cache(text, "big") == es); // already in key order, one per key
    // Two bad entries in different chunks: the earlier one is reported.
    std::string broken = text;
    for (const int bad_at : {15000, 3000}) {
        const auto line = broken.find(fmt::format("\"bucket\":[{}]", bad_at));
        REQUIRE(line != std::string::npos);
        const auto field = broken.find("\"samples\":", line);
        broken.replace(field, 10, "\"samples\":-");
    }
    const auto err = error_of([&] { (void)parse_cache(broken, "big.json"); });
    CHECK(err.find("$.entries[3000].samples") != std::string::npos);
}

TEST_CASE("a cache written on one line keeps the entry-by-entry reader") {
    if (!detail::have_simdjson()) return; // the nlohmann reader serves alone in that build
    std::vector<entry> es;
    for (int i = 0; i < 20000; ++i) // several parse chunks
        es.push_back(make(key({i}), i, 1.0 + i));
    es.front().cfg = ktune::config{{"name", std::string("a \"quoted\" {brace}\\")}};
    es.back().origin.host = "}]\\\\";
    std::string one = format_cache(es);
    std::erase(one, '\n');
    const std::string padded = one + std::string(detail::padding_bytes, ' ');
    const auto fast =
        detail::parse_cache_by_entry(std::string_view(padded.data(), one.size()), "m");
    REQUIRE(fast.has_value());
    CHECK(*fast == merge(es));
    CHECK(parse_cache(one, "m") == merge(es));
    // Whitespace anywhere between tokens, as other tools write it, still reads.
    const std::string spaced = nlohmann::ordered_json::parse(one).dump(1, '\t');
    CHECK(parse_cache(spaced, "spaced") == merge(es));
    // A bad entry on one line is reported by its JSON path, as for the line layout.
    std::string broken = one;
    broken.replace(broken.find("\"samples\":", broken.find("\"bucket\":[7000]")), 10,
                   "\"samples\":-");
    const auto err = error_of([&] { (void)parse_cache(broken, "one.json"); });
    CHECK(err.find("$.entries[7000].samples") != std::string::npos);
}
