// Where each JSON value starts, by path: what every spec error's line:column comes from.
#include "catch.hpp"

#include "core/line_column.hpp"
#include "kernel/json_locator.hpp"

using ktune::kernel::detail::json_locator;
using ktune::kernel::detail::path_step;

TEST_CASE("values and keys are located by path, nested and in arrays") {
    const std::string t = "{\n  \"a\": {\"b\": [10, {\"c\": \"x\"}]},\n  \"d\": true\n}";
    const json_locator loc(t);
    CHECK(loc.value_at("") == 0);
    CHECK(t.substr(loc.value_at("/a"), 6) == "{\"b\": ");
    CHECK(t.substr(loc.value_at("/a/b/0"), 2) == "10");
    CHECK(t.substr(loc.value_at("/a/b/1/c"), 3) == "\"x\"");
    CHECK(t.substr(loc.key_at("/a/b/1/c"), 3) == "\"c\"");
    CHECK(t.substr(loc.value_at("/d"), 4) == "true");
    CHECK(ktune::detail::line_column(t, loc.key_at("/d")) == "3:3");
    CHECK(loc.first_duplicate().first.empty());
}

TEST_CASE("an unknown path falls back to its nearest located parent") {
    const std::string t = "{\"a\": {\"b\": 1}}";
    const json_locator loc(t);
    CHECK(loc.value_at("/a/zz/0") == loc.value_at("/a"));
    CHECK(loc.value_at("/nothing") == 0);
}

TEST_CASE("escaped quotes, slashes and tildes in keys do not lose the place") {
    const std::string t = R"({"q\"k": 1, "a/b": 2, "t~": 3, "s": "br}ace"})";
    const json_locator loc(t);
    CHECK(t.substr(loc.value_at("/q\"k"), 1) == "1");
    CHECK(t.substr(loc.value_at("/" + path_step("a/b")), 1) == "2");
    CHECK(t.substr(loc.value_at("/" + path_step("t~")), 1) == "3");
    CHECK(path_step("a/b~c") == "a~1b~0c");
    CHECK(t.substr(loc.value_at("/s"), 8) == "\"br}ace\"");
}

TEST_CASE("a key given twice is reported at its second occurrence") {
    const std::string t = "{\"p\": {\"x\": 1,\n \"x\": 2}}";
    const json_locator loc(t);
    CHECK(loc.first_duplicate().first == "/p/x");
    CHECK(ktune::detail::line_column(t, loc.first_duplicate().second) == "2:2");
}

TEST_CASE("malformed text stops the scan without running past the end") {
    for (const char* t : {"{", "{\"a\": [1, 2", "[[[[", "{\"a\" 1}", "\"open", "{\"a\": }", ""}) {
        const json_locator loc(t);
        CHECK(loc.value_at("/a/0") <= std::string(t).size());
    }
}
