#pragma once
// A configuration: named, typed parameter values in a fixed order (the order of the space's
// axes). Shared by the search (what a strategy proposes), the tuner (what gets compiled) and
// the cache (what an application reads back).
//
//   ktune::config c{{"block", 256}, {"vec", 4}, {"layout", std::string("rowmajor")}};
//   int block = c.get<std::int64_t>("block");

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace ktune {

using param_value = std::variant<std::int64_t, double, bool, std::string>;

/// "256", "0.5", "true", "rowmajor".
std::string to_string(const param_value& v);

class config {
public:
    using entry = std::pair<std::string, param_value>;

    config() = default;
    config(std::initializer_list<entry> values) : values_(values) {}
    explicit config(std::vector<entry> values) : values_(std::move(values)) {}

    [[nodiscard]] const std::vector<entry>& values() const noexcept { return values_; }
    [[nodiscard]] std::size_t size() const noexcept { return values_.size(); }
    [[nodiscard]] bool empty() const noexcept { return values_.empty(); }

    [[nodiscard]] const param_value* find(std::string_view name) const noexcept {
        for (const auto& [n, v] : values_)
            if (n == name) return &v;
        return nullptr;
    }

    /// Typed access; throws ktune::error (not_found / input) naming the parameter.
    template <class T>
    [[nodiscard]] T get(std::string_view name) const;

    void set(std::string name, param_value v);

    /// "block=256,vec=4": stable, human-readable, also the config's identity in files.
    [[nodiscard]] std::string to_string() const;

    bool operator==(const config&) const = default;

private:
    std::vector<entry> values_;
};

namespace detail {
[[noreturn]] void throw_config_missing(std::string_view name);
[[noreturn]] void throw_config_type(std::string_view name, const param_value& v,
                                    std::string_view wanted);
} // namespace detail

template <class T>
T config::get(std::string_view name) const {
    const param_value* v = find(name);
    if (!v) detail::throw_config_missing(name);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        if (const auto* i = std::get_if<std::int64_t>(v)) return static_cast<T>(*i);
        detail::throw_config_type(name, *v, "an integer");
    } else if constexpr (std::is_floating_point_v<T>) {
        if (const auto* d = std::get_if<double>(v)) return static_cast<T>(*d);
        if (const auto* i = std::get_if<std::int64_t>(v)) return static_cast<T>(*i);
        detail::throw_config_type(name, *v, "a number");
    } else if constexpr (std::is_same_v<T, bool>) {
        if (const auto* b = std::get_if<bool>(v)) return *b;
        detail::throw_config_type(name, *v, "a bool");
    } else {
        if (const auto* s = std::get_if<std::string>(v)) return T(*s);
        detail::throw_config_type(name, *v, "a string");
    }
}

} // namespace ktune
