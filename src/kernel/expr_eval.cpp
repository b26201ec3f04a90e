// Evaluation, names and canonical text of kernel-spec expressions. Every arithmetic step is
// checked: an int64 overflow or a division by zero is an expr_error at the operator's offset.
#include "ktune/kernel/expr.hpp"

#include "kernel/expr_node.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace ktune::kernel {

namespace detail {
const char* spelling(expr_op op) noexcept {
    switch (op) {
    case expr_op::add:
        return "+";
    case expr_op::sub:
        return "-";
    case expr_op::mul:
        return "*";
    case expr_op::div:
        return "/";
    case expr_op::mod:
        return "%";
    case expr_op::lt:
        return "<";
    case expr_op::le:
        return "<=";
    case expr_op::gt:
        return ">";
    case expr_op::ge:
        return ">=";
    case expr_op::eq:
        return "==";
    case expr_op::ne:
        return "!=";
    case expr_op::land:
        return "&&";
    case expr_op::lor:
        return "||";
    case expr_op::neg:
        return "-";
    case expr_op::plus:
        return "+";
    case expr_op::lnot:
        return "!";
    case expr_op::ceil_div:
        return "ceil_div";
    case expr_op::min:
        return "min";
    case expr_op::max:
        return "max";
    default:
        return "?";
    }
}
} // namespace detail

namespace {

using lookup_fn = std::function<const std::int64_t*(std::string_view)>;

[[noreturn]] void overflow(const expr_node& n, std::int64_t a, std::int64_t b) {
    throw expr_error(fmt::format("{} {} {} overflows int64", a, detail::spelling(n.op), b),
                     n.offset);
}

std::int64_t checked_div(const expr_node& n, std::int64_t a, std::int64_t b) {
    if (b == 0)
        throw expr_error(fmt::format("{} {} 0: division by zero", a, detail::spelling(n.op)),
                         n.offset);
    if (a == std::numeric_limits<std::int64_t>::min() && b == -1) overflow(n, a, b);
    return n.op == expr_op::mod ? a % b : a / b;
}

std::int64_t ceil_div(const expr_node& n, std::int64_t a, std::int64_t b) {
    if (b == 0) throw expr_error(fmt::format("ceil_div({}, 0): division by zero", a), n.offset);
    if (a == std::numeric_limits<std::int64_t>::min() && b == -1)
        throw expr_error(fmt::format("ceil_div({}, -1) overflows int64", a), n.offset);
    const std::int64_t q = a / b;
    // C division truncates toward zero; round up where the exact quotient is positive.
    return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}

std::int64_t eval_node(const expr_node& n, const lookup_fn& lookup) {
    switch (n.op) {
    case expr_op::literal:
        return n.value;
    case expr_op::name: {
        const std::int64_t* v = lookup(n.name);
        if (!v) throw expr_error(fmt::format("'{}' has no value here", n.name), n.offset);
        return *v;
    }
    case expr_op::land:
        return eval_node(n.args[0], lookup) != 0 && eval_node(n.args[1], lookup) != 0;
    case expr_op::lor:
        return eval_node(n.args[0], lookup) != 0 || eval_node(n.args[1], lookup) != 0;
    case expr_op::cond:
        // Only the chosen branch is evaluated: "K > 0 ? N / K : 0" is safe.
        return eval_node(n.args[0], lookup) != 0 ? eval_node(n.args[1], lookup)
                                                 : eval_node(n.args[2], lookup);
    case expr_op::min:
    case expr_op::max: {
        std::int64_t r = eval_node(n.args[0], lookup);
        for (std::size_t i = 1; i < n.args.size(); ++i) {
            const std::int64_t v = eval_node(n.args[i], lookup);
            r = n.op == expr_op::min ? std::min(r, v) : std::max(r, v);
        }
        return r;
    }
    default:
        break;
    }
    if (n.args.size() == 1) {
        const std::int64_t a = eval_node(n.args[0], lookup);
        if (n.op == expr_op::lnot) return a == 0;
        if (n.op == expr_op::plus) return a;
        if (a == std::numeric_limits<std::int64_t>::min())
            throw expr_error(fmt::format("-({}) overflows int64", a), n.offset);
        return -a;
    }
    const std::int64_t a = eval_node(n.args[0], lookup);
    const std::int64_t b = eval_node(n.args[1], lookup);
    std::int64_t r = 0;
    switch (n.op) {
    case expr_op::add:
        if (__builtin_add_overflow(a, b, &r)) overflow(n, a, b);
        return r;
    case expr_op::sub:
        if (__builtin_sub_overflow(a, b, &r)) overflow(n, a, b);
        return r;
    case expr_op::mul:
        if (__builtin_mul_overflow(a, b, &r)) overflow(n, a, b);
        return r;
    case expr_op::div:
    case expr_op::mod:
        return checked_div(n, a, b);
    case expr_op::ceil_div:
        return ceil_div(n, a, b);
    case expr_op::lt:
        return a < b;
    case expr_op::le:
        return a <= b;
    case expr_op::gt:
        return a > b;
    case expr_op::ge:
        return a >= b;
    case expr_op::eq:
        return a == b;
    case expr_op::ne:
        return a != b;
    default:
        throw expr_error("internal: unknown expression node", n.offset);
    }
}

void collect(const expr_node& n, std::vector<std::pair<std::string, std::size_t>>& out) {
    if (n.op == expr_op::name) {
        const bool seen =
            std::any_of(out.begin(), out.end(), [&](const auto& u) { return u.first == n.name; });
        if (!seen) out.emplace_back(n.name, n.offset);
    }
    for (const auto& a : n.args)
        collect(a, out);
}

void write(const expr_node& n, std::string& out) {
    switch (n.op) {
    case expr_op::literal:
        // A negative constant (from expr::constant) stays one token-group when parsed back.
        out += n.value < 0 ? fmt::format("({})", n.value) : fmt::format("{}", n.value);
        return;
    case expr_op::name:
        out += n.name;
        return;
    case expr_op::neg:
    case expr_op::plus:
    case expr_op::lnot:
        out += detail::spelling(n.op);
        out += '(';
        write(n.args[0], out);
        out += ')';
        return;
    case expr_op::cond:
        out += '(';
        write(n.args[0], out);
        out += " ? ";
        write(n.args[1], out);
        out += " : ";
        write(n.args[2], out);
        out += ')';
        return;
    case expr_op::ceil_div:
    case expr_op::min:
    case expr_op::max:
        out += detail::spelling(n.op);
        out += '(';
        for (std::size_t i = 0; i < n.args.size(); ++i) {
            if (i) out += ", ";
            write(n.args[i], out);
        }
        out += ')';
        return;
    default:
        out += '(';
        write(n.args[0], out);
        out += ' ';
        out += detail::spelling(n.op);
        out += ' ';
        write(n.args[1], out);
        out += ')';
    }
}

} // namespace

expr::expr() : root_(std::make_shared<const expr_node>()), text_("0") {}

expr expr::constant(std::int64_t v) {
    expr e;
    expr_node n;
    n.value = v;
    e.root_ = std::make_shared<const expr_node>(std::move(n));
    e.text_ = e.to_string();
    return e;
}

std::int64_t expr::eval(const bindings& b) const {
    return eval([&b](std::string_view name) -> const std::int64_t* {
        const auto it = b.find(name);
        return it == b.end() ? nullptr : &it->second;
    });
}

std::int64_t expr::eval(const lookup_fn& lookup) const {
    return eval_node(*root_, lookup);
}

std::vector<std::pair<std::string, std::size_t>> expr::name_uses() const {
    std::vector<std::pair<std::string, std::size_t>> out;
    collect(*root_, out);
    return out;
}

std::vector<std::string> expr::names() const {
    std::vector<std::string> out;
    for (auto& [name, at] : name_uses())
        out.push_back(name);
    std::sort(out.begin(), out.end());
    return out;
}

std::string expr::to_string() const {
    std::string out;
    write(*root_, out);
    return out;
}

bool expr::is_constant() const {
    return name_uses().empty();
}

} // namespace ktune::kernel
