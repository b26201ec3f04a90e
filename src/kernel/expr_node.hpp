#pragma once
// The tree behind ktune::kernel::expr. Private to src/kernel.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ktune::kernel {

enum class expr_op {
    literal,
    name,
    neg,
    plus, // unary +
    lnot,
    add,
    sub,
    mul,
    div,
    mod,
    lt,
    le,
    gt,
    ge,
    eq,
    ne,
    land,
    lor,
    cond, // c ? a : b
    ceil_div,
    min,
    max,
};

struct expr_node {
    expr_op op = expr_op::literal;
    std::int64_t value = 0; ///< literal
    std::string name;       ///< name
    std::vector<expr_node> args;
    std::size_t offset = 0; ///< byte of the node's first token (operator for binary ops)
};

namespace detail {
/// Spelling of a binary operator, or of a call ("ceil_div").
const char* spelling(expr_op op) noexcept;
} // namespace detail

} // namespace ktune::kernel
