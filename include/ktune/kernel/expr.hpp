#pragma once
// Integer expressions of a kernel spec: restrictions, launch geometry, argument sizes and the
// bytes/FLOP model, written as text over tunable parameters, problem dimensions and device
// limits. Parsed once to a tree that can be checked (names()), evaluated many times and written
// back (to_string()), so a spec stays serialisable and replayable (docs/formats.md#ktunekernel).
//
//   auto e = ktune::kernel::expr::parse("ceil_div(M, TILE_M) * (TILE_M <= 128)");
//   std::int64_t v = e.eval({{"M", 1000}, {"TILE_M", 64}});      // 16
//
// Grammar, lowest precedence first (as in C):  c ? a : b,  ||,  &&,  == !=,  < <= > >=,  + -,
// * / %,  unary - + !,  then integers, names, calls (ceil_div(a,b), min(a,b,...), max(a,b,...))
// and parentheses. Arithmetic is int64; an overflow, a division or modulo by zero is an
// expr_error, never undefined behaviour. Comparisons and logic give 0 or 1.

#include "ktune/core/error.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::kernel {

/// A malformed expression or a failed evaluation. offset() is the byte of the expression text
/// where the problem starts, so a spec reader can turn it into file:line:column.
class expr_error : public ktune::error {
public:
    expr_error(const std::string& message, std::size_t offset)
        : ktune::error(error_kind::input, message), offset_(offset) {}
    [[nodiscard]] std::size_t offset() const noexcept { return offset_; }

private:
    std::size_t offset_;
};

/// Name -> value during evaluation.
using bindings = std::map<std::string, std::int64_t, std::less<>>;

struct expr_node; // the parsed tree (src/kernel/expr_node.hpp)

class expr {
public:
    /// The constant 0.
    expr();
    /// Throws expr_error (with the offset of the offending token) on a syntax error, an unknown
    /// function, a wrong argument count, an integer literal beyond int64, nesting deeper than
    /// max_depth, or text longer than max_length.
    static expr parse(std::string_view text);
    /// An integer literal.
    static expr constant(std::int64_t v);

    /// Throws expr_error for an unbound name, an overflow or a division by zero.
    [[nodiscard]] std::int64_t eval(const bindings& b) const;
    /// Evaluation where names resolve through a function (nullptr: unbound).
    [[nodiscard]] std::int64_t
    eval(const std::function<const std::int64_t*(std::string_view)>& lookup) const;

    /// Every name the expression refers to, sorted, each once.
    [[nodiscard]] std::vector<std::string> names() const;
    /// Every name with the offset of its first use in text().
    [[nodiscard]] std::vector<std::pair<std::string, std::size_t>> name_uses() const;
    /// Canonical text: parses back to an equal tree.
    [[nodiscard]] std::string to_string() const;
    /// The text it was parsed from (to_string() for a constant).
    [[nodiscard]] const std::string& text() const noexcept { return text_; }
    /// True when the expression holds no name.
    [[nodiscard]] bool is_constant() const;

    /// Compares canonical forms.
    bool operator==(const expr& o) const { return to_string() == o.to_string(); }

    static constexpr int max_depth = 64;
    /// Longest text parse() accepts: bounds the tree's depth (a long chain of a + a + ...)
    /// and so the recursion of evaluation.
    static constexpr std::size_t max_length = 4096;

private:
    std::shared_ptr<const expr_node> root_;
    std::string text_;
};

} // namespace ktune::kernel
