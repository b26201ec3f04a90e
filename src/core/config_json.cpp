#include "core/config_json.hpp"
#include "ktune/core/error.hpp"

#include <fmt/format.h>

namespace ktune::detail {

nlohmann::json value_to_json(const param_value& v) {
    return std::visit([](const auto& x) { return nlohmann::json(x); }, v);
}

namespace {
template <class Json>
param_value value_from_json_impl(const Json& j, std::string_view name) {
    if (j.is_boolean()) return j.template get<bool>();
    if (j.is_number_integer()) return j.template get<std::int64_t>();
    if (j.is_number()) return j.template get<double>();
    if (j.is_string()) return j.template get<std::string>();
    throw error(error_kind::input,
                fmt::format("parameter '{}': expected a number, bool or string, got {}", name,
                            j.type_name()));
}
} // namespace

param_value value_from_json(const nlohmann::json& j, std::string_view name) {
    return value_from_json_impl(j, name);
}
param_value value_from_json(const nlohmann::ordered_json& j, std::string_view name) {
    return value_from_json_impl(j, name);
}

nlohmann::ordered_json config_to_json(const config& c) {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (const auto& [n, v] : c.values()) {
        const std::string& name = n; // clang < 16 cannot capture a structured binding
        std::visit([&j, &name](const auto& x) { j[name] = x; }, v);
    }
    return j;
}

namespace {
template <class Json>
config from_json_impl(const Json& j) {
    if (!j.is_object())
        throw error(error_kind::input,
                    fmt::format("a config must be a JSON object, got {}", j.type_name()));
    std::vector<config::entry> values;
    for (auto it = j.begin(); it != j.end(); ++it)
        values.emplace_back(it.key(), value_from_json_impl(it.value(), it.key()));
    return config(std::move(values));
}
} // namespace

config config_from_json(const nlohmann::ordered_json& j) {
    return from_json_impl(j);
}
config config_from_json(const nlohmann::json& j) {
    return from_json_impl(j);
}

} // namespace ktune::detail
