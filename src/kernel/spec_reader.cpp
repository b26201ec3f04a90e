// The checked reader behind load_spec: positions, required members, typed values and
// expressions whose names are checked against the spec's parameters, dimensions and limits.
#include "kernel/spec_reader.hpp"

#include "core/line_column.hpp"
#include "ktune/core/error.hpp"
#include "ktune/kernel/limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace ktune::kernel::detail {

bool is_identifier(std::string_view s) noexcept {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
}

spec_reader::spec_reader(const std::string& text, std::string source)
    : text_(text), source_(std::move(source)), loc_(text) {}

std::string spec_reader::where(const std::string& path, bool at_key) const {
    const std::size_t at = at_key ? loc_.key_at(path) : loc_.value_at(path);
    return source_ + ":" + ktune::detail::line_column(text_, at);
}

void spec_reader::fail(const std::string& path, const std::string& what, bool at_key) const {
    throw error(error_kind::input, fmt::format("{}: {}", where(path, at_key), what));
}

void spec_reader::fail_in(const std::string& path, std::size_t offset,
                          const std::string& what) const {
    std::size_t at = loc_.value_at(path);
    // Inside a string: skip its opening quote. (Escapes before the offset would shift the
    // column; expressions have no reason to hold any.)
    if (at < text_.size() && text_[at] == '"') at += 1 + offset;
    throw error(error_kind::input,
                fmt::format("{}:{}: {}", source_, ktune::detail::line_column(text_, at), what));
}

void spec_reader::only_keys(const json& obj, const std::string& path,
                            std::initializer_list<const char*> allowed) const {
    for (const auto& item : obj.items()) {
        const std::string& key = item.key(); // named, not bound: lambdas may capture it
        const bool known =
            std::any_of(allowed.begin(), allowed.end(), [&](const char* a) { return key == a; });
        if (known) continue;
        std::string list;
        for (const char* a : allowed)
            list += (list.empty() ? "" : ", ") + std::string(a);
        fail(path + "/" + path_step(key),
             fmt::format("unknown key '{}' here (known: {})", key, list), true);
    }
}

const json& spec_reader::member(const json& obj, const std::string& path, const char* key,
                                const char* expect) const {
    const auto it = obj.find(key);
    if (it == obj.end()) fail(path, fmt::format("'{}' is missing: {}", key, expect));
    return *it;
}

std::string spec_reader::text(const json& v, const std::string& path) const {
    if (!v.is_string() || v.get_ref<const std::string&>().empty())
        fail(path, "must be a non-empty string");
    return v.get<std::string>();
}

std::int64_t spec_reader::integer(const json& v, const std::string& path) const {
    if (v.is_number_integer()) return v.get<std::int64_t>();
    if (v.is_number_unsigned()) fail(path, "is beyond the int64 range");
    fail(path, fmt::format("must be an integer, not {}", v.dump()));
}

double spec_reader::number(const json& v, const std::string& path) const {
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
        fail(path, fmt::format("must be a finite number >= 0, not {}", v.dump()));
    return v.get<double>();
}

located_expr spec_reader::expression(const json& v, const std::string& path, name_scope scope,
                                     const char* what, std::size_t shift) const {
    if (v.is_number_integer()) return {expr::constant(v.get<std::int64_t>()), where(path)};
    if (!v.is_string())
        fail(path, fmt::format("{} must be an expression string (or an integer), not {}", what,
                               v.dump()));
    const auto& t = v.get_ref<const std::string&>();
    expr e;
    try {
        e = expr::parse(t);
    } catch (const expr_error& x) {
        fail_in(path, shift + x.offset(), fmt::format("{}: {} in '{}'", what, x.what(), t));
    }
    for (const auto& [name, at] : e.name_uses()) {
        const bool dim = dimensions.count(name) != 0;
        const bool param = parameters.count(name) != 0;
        const auto& limits = device_limits::names();
        const bool limit = std::find(limits.begin(), limits.end(), name) != limits.end();
        if (dim || (param && scope != name_scope::dimensions) ||
            (limit && scope == name_scope::everything))
            continue;
        std::string why;
        if (param)
            why = fmt::format("'{}' is a parameter, but {} may use only the problem's dimensions "
                              "(it must not change from config to config)",
                              name, what);
        else if (limit)
            why = fmt::format("'{}' is a device limit, which {} may not use", name, what);
        else {
            std::string known;
            for (const auto& p : parameters)
                known += (known.empty() ? "" : ", ") + p;
            std::string dims;
            for (const auto& d : dimensions)
                dims += (dims.empty() ? "" : ", ") + d;
            why = fmt::format("unknown name '{}' in {} (parameters: {}; dimensions: {}{})", name,
                              what, known.empty() ? "none" : known, dims,
                              scope == name_scope::everything
                                  ? "; device limits such as max_threads_per_block"
                                  : "");
        }
        fail_in(path, shift + at, why);
    }
    return {std::move(e), where(path)};
}

} // namespace ktune::kernel::detail
