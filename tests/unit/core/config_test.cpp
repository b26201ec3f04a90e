#include "catch.hpp"

#include "core/config_json.hpp"
#include "ktune/core/config.hpp"
#include "ktune/core/error.hpp"

#include <string>

TEST_CASE("config keeps order, gives typed access and names what is wrong") {
    ktune::config c{{"block", std::int64_t{256}},
                    {"vec", std::int64_t{4}},
                    {"alpha", 0.5},
                    {"unroll", true},
                    {"layout", std::string("row")}};
    CHECK(c.to_string() == "block=256,vec=4,alpha=0.5,unroll=true,layout=row");
    CHECK(c.get<int>("block") == 256);
    CHECK(c.get<double>("vec") == 4.0); // integers widen to floating point
    CHECK(c.get<bool>("unroll"));
    CHECK(c.get<std::string>("layout") == "row");
    try {
        (void)c.get<int>("layout");
        FAIL("no throw");
    } catch (const ktune::error& e) {
        CHECK(e.kind() == ktune::error_kind::input);
        CHECK(std::string(e.what()).find("layout") != std::string::npos);
    }
    CHECK_THROWS_AS((void)c.get<int>("nope"), ktune::error);
    c.set("vec", std::int64_t{8});
    CHECK(c.get<int>("vec") == 8);
    CHECK(c.size() == 5);
}

TEST_CASE("config JSON round trip keeps types and order") {
    ktune::config c{{"z", std::int64_t{1}}, {"a", 2.25}, {"m", false}, {"s", std::string("x")}};
    const auto j = ktune::detail::config_to_json(c);
    CHECK(j.dump() == R"({"z":1,"a":2.25,"m":false,"s":"x"})");
    const auto back = ktune::detail::config_from_json(nlohmann::ordered_json::parse(j.dump()));
    CHECK(back.to_string() == c.to_string());
    CHECK_THROWS_AS(ktune::detail::config_from_json(nlohmann::json::parse(R"({"a":[1]})")),
                    ktune::error);
    CHECK_THROWS_AS(ktune::detail::config_from_json(nlohmann::json::parse("[1]")), ktune::error);
}
