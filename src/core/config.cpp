#include "ktune/core/config.hpp"
#include "ktune/core/error.hpp"

#include <fmt/format.h>

namespace ktune {

std::string to_string(const param_value& v) {
    return std::visit(
        [](const auto& x) -> std::string {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, bool>)
                return x ? "true" : "false";
            else if constexpr (std::is_same_v<T, std::string>)
                return x;
            else
                return fmt::format("{}", x); // shortest round-trip form for doubles
        },
        v);
}

void config::set(std::string name, param_value v) {
    for (auto& [n, old] : values_)
        if (n == name) {
            old = std::move(v);
            return;
        }
    values_.emplace_back(std::move(name), std::move(v));
}

std::string config::to_string() const {
    std::string out;
    for (const auto& [n, v] : values_) {
        if (!out.empty()) out += ',';
        out += n;
        out += '=';
        out += ktune::to_string(v);
    }
    return out;
}

namespace detail {
void throw_config_missing(std::string_view name) {
    throw error(error_kind::not_found, fmt::format("config has no parameter '{}'", name));
}
void throw_config_type(std::string_view name, const param_value& v, std::string_view wanted) {
    throw error(error_kind::input, fmt::format("config parameter '{}' is {}, not {}", name,
                                               ktune::to_string(v), wanted));
}
} // namespace detail

} // namespace ktune
