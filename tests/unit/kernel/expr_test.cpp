// The expression language of kernel specs: precedence, integer semantics, checked overflow,
// errors with offsets, names, canonical text.
#include "catch.hpp"

#include "ktune/kernel/expr.hpp"

#include <limits>

using ktune::kernel::bindings;
using ktune::kernel::expr;
using ktune::kernel::expr_error;

namespace {
std::int64_t ev(const char* text, const bindings& b = {}) {
    return expr::parse(text).eval(b);
}
std::size_t error_offset(const char* text, const bindings& b = {}) {
    try {
        (void)expr::parse(text).eval(b);
    } catch (const expr_error& e) {
        return e.offset();
    }
    FAIL("no error for " << text);
    return 0;
}
} // namespace

TEST_CASE("precedence and associativity follow C") {
    CHECK(ev("2 + 3 * 4") == 14);
    CHECK(ev("(2 + 3) * 4") == 20);
    CHECK(ev("20 - 5 - 3") == 12);
    CHECK(ev("64 / 4 / 2") == 8);
    CHECK(ev("7 % 4 * 3") == 9);
    CHECK(ev("-2 * 3") == -6);
    CHECK(ev("- -2") == 2);
    CHECK(ev("1 + 2 < 4") == 1);
    CHECK(ev("1 < 2 == 1") == 1);
    CHECK(ev("0 || 1 && 0") == 0);
    CHECK(ev("1 || 0 && 0") == 1);
    CHECK(ev("!0 + 1") == 2);
    CHECK(ev("!(3 > 2)") == 0);
    CHECK(ev("1 ? 2 : 3 ? 4 : 5") == 2);
    CHECK(ev("0 ? 2 : 0 ? 4 : 5") == 5);
    CHECK(ev("1 != 2 && 3 >= 3 && 2 <= 1 == 0") == 1);
}

TEST_CASE("integer division truncates; ceil_div rounds up; min and max take several") {
    CHECK(ev("7 / 2") == 3);
    CHECK(ev("-7 / 2") == -3);
    CHECK(ev("-7 % 2") == -1);
    CHECK(ev("ceil_div(7, 2)") == 4);
    CHECK(ev("ceil_div(8, 2)") == 4);
    CHECK(ev("ceil_div(-7, 2)") == -3);
    CHECK(ev("ceil_div(0, 5)") == 0);
    CHECK(ev("min(4, 2, 9)") == 2);
    CHECK(ev("max(4, 2, 9)") == 9);
    CHECK(ev("ceil_div(N, TILE) * TILE", {{"N", 1000}, {"TILE", 64}}) == 1024);
}

TEST_CASE("names are listed sorted and once, and bound at evaluation") {
    const auto e = expr::parse("TILE_M * TILE_N <= max_threads_per_block && TILE_M <= M");
    CHECK(e.names() == std::vector<std::string>{"M", "TILE_M", "TILE_N", "max_threads_per_block"});
    CHECK(e.name_uses().front() == std::pair<std::string, std::size_t>{"TILE_M", 0});
    CHECK(e.eval({{"TILE_M", 32}, {"TILE_N", 32}, {"max_threads_per_block", 1024}, {"M", 64}}) ==
          1);
    CHECK(error_offset("a + b", {{"a", 1}}) == 4); // b unbound
    CHECK(expr::parse("3 * 4").is_constant());
    CHECK_FALSE(expr::parse("3 * x").is_constant());
}

TEST_CASE("int64 overflow and division by zero are errors at the operator") {
    const auto max = std::numeric_limits<std::int64_t>::max();
    CHECK(ev("9223372036854775807") == max);
    CHECK(error_offset("9223372036854775807 + 1") == 20);
    CHECK(error_offset("4611686018427387904 * 2") == 20);
    CHECK(error_offset("0 - 9223372036854775807 - 2") == 24);
    CHECK(error_offset("x / 0", {{"x", 1}}) == 2);
    CHECK(error_offset("x % (y - y)", {{"x", 1}, {"y", 3}}) == 2);
    CHECK(error_offset("ceil_div(1, 0)") == 0);
    CHECK(error_offset("-x", {{"x", std::numeric_limits<std::int64_t>::min()}}) == 0);
    CHECK(error_offset("x / -1", {{"x", std::numeric_limits<std::int64_t>::min()}}) == 2);
    CHECK(error_offset("99999999999999999999") == 0); // literal beyond int64
    // Only the chosen branch of ?: and the needed side of && || run.
    CHECK(ev("0 ? 1 / 0 : 7") == 7);
    CHECK(ev("0 && 1 / 0") == 0);
    CHECK(ev("1 || 1 / 0") == 1);
}

TEST_CASE("syntax errors say where") {
    CHECK(error_offset("") == 0);
    CHECK(error_offset("1 +") == 3);
    CHECK(error_offset("(1 + 2") == 6);
    CHECK(error_offset("1 + 2)") == 5);
    CHECK(error_offset("a = b") == 2);
    CHECK(error_offset("x + pow(2, 3)") == 4);
    CHECK(error_offset("min(1)") == 0);
    CHECK(error_offset("ceil_div(1, 2, 3)") == 0);
    CHECK(error_offset("1.5") == 1);
    CHECK(error_offset("0x10") == 1);
    CHECK(error_offset("1 ? 2") == 5);
    CHECK(error_offset("3 $ 4") == 2);
    std::string deep(100, '(');
    deep += "1" + std::string(100, ')');
    CHECK_THROWS_AS(expr::parse(deep), expr_error);
    std::string chain = "1";
    while (chain.size() <= expr::max_length)
        chain += " + 1";
    CHECK(error_offset(chain.c_str()) == expr::max_length);
    chain.resize(1 + 4 * ((expr::max_length - 1) / 4)); // the longest "1 + 1 ... + 1" that fits
    CHECK(expr::parse(chain).eval(bindings{}) == static_cast<std::int64_t>(chain.size() / 4 + 1));
    std::string negs(100, '-');
    CHECK_THROWS_AS(expr::parse(negs + "1"), expr_error);
}

TEST_CASE("to_string parses back to the same value and text") {
    for (const char* t :
         {"2 + 3 * 4", "-(a) - -b", "a ? b : c ? 1 : 2", "ceil_div(N, T * 2) + min(a, b, 3)",
          "!(a < b) || a >= b && a != 0", "a % b / c"}) {
        const auto e = expr::parse(t);
        const auto back = expr::parse(e.to_string());
        CHECK(back.to_string() == e.to_string());
        const bindings b{{"a", 7}, {"b", 3}, {"c", 2}, {"N", 1000}, {"T", 16}};
        CHECK(back.eval(b) == e.eval(b));
    }
    CHECK(expr::constant(-5).eval(bindings{}) == -5);
    CHECK(expr::parse(expr::constant(-5).to_string()).eval(bindings{}) == -5);
    CHECK(expr::parse("1+2") == expr::parse("1 + 2"));
}
