// Recursive-descent parser of kernel-spec expressions (grammar in ktune/kernel/expr.hpp).
#include "ktune/kernel/expr.hpp"

#include "kernel/expr_node.hpp"

#include <fmt/format.h>

#include <cctype>
#include <limits>
#include <utility>

namespace ktune::kernel {
namespace {

class parser {
public:
    explicit parser(std::string_view text) : s_(text) {}

    expr_node parse_all() {
        skip();
        if (pos_ >= s_.size()) throw expr_error("empty expression", 0);
        expr_node n = conditional(0);
        skip();
        if (pos_ < s_.size())
            fail(fmt::format("unexpected '{}' after a complete expression", s_[pos_]));
        return n;
    }

private:
    std::string_view s_;
    std::size_t pos_ = 0;

    [[noreturn]] void fail(const std::string& what) const { throw expr_error(what, pos_); }

    void skip() {
        while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_])))
            ++pos_;
    }
    bool take(std::string_view tok) {
        skip();
        if (s_.substr(pos_, tok.size()) != tok) return false;
        pos_ += tok.size();
        return true;
    }
    void expect(char c, const char* context) {
        skip();
        if (pos_ >= s_.size())
            fail(fmt::format("expected '{}' {} but the expression ended", c, context));
        if (s_[pos_] != c) fail(fmt::format("expected '{}' {}, found '{}'", c, context, s_[pos_]));
        ++pos_;
    }
    void deeper(int depth) const {
        if (depth > expr::max_depth)
            fail(fmt::format("expression nested deeper than {} levels", expr::max_depth));
    }
    static expr_node binary(expr_op op, std::size_t at, expr_node a, expr_node b) {
        expr_node n;
        n.op = op;
        n.offset = at;
        n.args.push_back(std::move(a));
        n.args.push_back(std::move(b));
        return n;
    }

    expr_node conditional(int depth) {
        deeper(depth);
        expr_node c = logical_or(depth + 1);
        skip();
        const std::size_t at = pos_;
        if (!take("?")) return c;
        expr_node a = conditional(depth + 1);
        expect(':', "in 'c ? a : b'");
        expr_node b = conditional(depth + 1);
        expr_node n;
        n.op = expr_op::cond;
        n.offset = at;
        n.args = {std::move(c), std::move(a), std::move(b)};
        return n;
    }
    expr_node logical_or(int depth) {
        expr_node a = logical_and(depth);
        for (;;) {
            skip();
            const std::size_t at = pos_;
            if (!take("||")) return a;
            a = binary(expr_op::lor, at, std::move(a), logical_and(depth));
        }
    }
    expr_node logical_and(int depth) {
        expr_node a = equality(depth);
        for (;;) {
            skip();
            const std::size_t at = pos_;
            if (!take("&&")) return a;
            a = binary(expr_op::land, at, std::move(a), equality(depth));
        }
    }
    expr_node equality(int depth) {
        expr_node a = relational(depth);
        for (;;) {
            skip();
            const std::size_t at = pos_;
            if (take("=="))
                a = binary(expr_op::eq, at, std::move(a), relational(depth));
            else if (take("!="))
                a = binary(expr_op::ne, at, std::move(a), relational(depth));
            else
                return a;
        }
    }
    expr_node relational(int depth) {
        expr_node a = additive(depth);
        for (;;) {
            skip();
            const std::size_t at = pos_;
            if (take("<="))
                a = binary(expr_op::le, at, std::move(a), additive(depth));
            else if (take(">="))
                a = binary(expr_op::ge, at, std::move(a), additive(depth));
            else if (take("<"))
                a = binary(expr_op::lt, at, std::move(a), additive(depth));
            else if (take(">"))
                a = binary(expr_op::gt, at, std::move(a), additive(depth));
            else
                return a;
        }
    }
    expr_node additive(int depth) {
        expr_node a = multiplicative(depth);
        for (;;) {
            skip();
            const std::size_t at = pos_;
            if (take("+"))
                a = binary(expr_op::add, at, std::move(a), multiplicative(depth));
            else if (take("-"))
                a = binary(expr_op::sub, at, std::move(a), multiplicative(depth));
            else
                return a;
        }
    }
    expr_node multiplicative(int depth) {
        expr_node a = unary(depth);
        for (;;) {
            skip();
            const std::size_t at = pos_;
            if (take("*"))
                a = binary(expr_op::mul, at, std::move(a), unary(depth));
            else if (take("/"))
                a = binary(expr_op::div, at, std::move(a), unary(depth));
            else if (take("%"))
                a = binary(expr_op::mod, at, std::move(a), unary(depth));
            else
                return a;
        }
    }
    expr_node unary(int depth) {
        deeper(depth);
        skip();
        const std::size_t at = pos_;
        expr_op op{};
        if (take("-"))
            op = expr_op::neg;
        else if (take("+"))
            op = expr_op::plus;
        // "!=" cannot start an operand, so a lone '!' here is the negation.
        else if (take("!"))
            op = expr_op::lnot;
        else
            return primary(depth);
        expr_node n;
        n.op = op;
        n.offset = at;
        n.args.push_back(unary(depth + 1));
        return n;
    }
    expr_node primary(int depth) {
        skip();
        if (pos_ >= s_.size()) fail("expected a number, a name or '(' but the expression ended");
        const char c = s_[pos_];
        expr_node n;
        n.offset = pos_;
        if (c == '(') {
            ++pos_;
            n = conditional(depth + 1);
            expect(')', "to close '('");
            return n;
        }
        if (std::isdigit(static_cast<unsigned char>(c))) {
            std::int64_t v = 0;
            while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
                const int d = s_[pos_] - '0';
                if (v > (std::numeric_limits<std::int64_t>::max() - d) / 10) {
                    pos_ = n.offset;
                    fail("integer literal beyond the int64 range");
                }
                v = v * 10 + d;
                ++pos_;
            }
            if (pos_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[pos_])) ||
                                     s_[pos_] == '_' || s_[pos_] == '.'))
                fail("only decimal integers are allowed (no suffixes, no fractions)");
            n.op = expr_op::literal;
            n.value = v;
            return n;
        }
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            const std::size_t start = pos_;
            while (pos_ < s_.size() &&
                   (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
                ++pos_;
            std::string id(s_.substr(start, pos_ - start));
            skip();
            if (pos_ < s_.size() && s_[pos_] == '(') return call(id, start, depth);
            n.op = expr_op::name;
            n.name = std::move(id);
            return n;
        }
        fail(fmt::format("unexpected '{}': expected a number, a name or '('", c));
    }
    expr_node call(const std::string& fn, std::size_t at, int depth) {
        expr_node n;
        n.offset = at;
        std::size_t min_args = 2, max_args = 2;
        if (fn == "ceil_div")
            n.op = expr_op::ceil_div;
        else if (fn == "min" || fn == "max") {
            n.op = fn == "min" ? expr_op::min : expr_op::max;
            max_args = 16;
        } else {
            pos_ = at;
            fail(fmt::format("unknown function '{}' (known: ceil_div, min, max)", fn));
        }
        ++pos_; // '('
        skip();
        if (pos_ < s_.size() && s_[pos_] == ')') {
            pos_ = at;
            fail(fmt::format("{}() needs arguments", fn));
        }
        for (;;) {
            n.args.push_back(conditional(depth + 1));
            skip();
            if (take(",")) continue;
            expect(')', fmt::format("to close {}(", fn).c_str());
            break;
        }
        if (n.args.size() < min_args || n.args.size() > max_args) {
            pos_ = at;
            fail(min_args == max_args
                     ? fmt::format("{}() takes {} arguments, not {}", fn, min_args, n.args.size())
                     : fmt::format("{}() takes {} to {} arguments, not {}", fn, min_args, max_args,
                                   n.args.size()));
        }
        return n;
    }
};

} // namespace

expr expr::parse(std::string_view text) {
    if (text.size() > max_length)
        throw expr_error(fmt::format("expression longer than {} characters", max_length),
                         max_length);
    expr e;
    e.root_ = std::make_shared<const expr_node>(parser(text).parse_all());
    e.text_ = std::string(text);
    return e;
}

} // namespace ktune::kernel
