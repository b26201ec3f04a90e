#pragma once
// JSON form of configs, shared by every file format that stores one (cache, results, spaces).
// Private: nlohmann/json never reaches public headers.
//
//   nlohmann::json j = ktune::detail::config_to_json(c);   // {"block": 256, "vec": 4}

#include "ktune/core/config.hpp"

#include <nlohmann/json.hpp>

namespace ktune::detail {

nlohmann::json value_to_json(const param_value& v);
/// Integers stay integers, other numbers become doubles; arrays/objects/null are rejected.
param_value value_from_json(const nlohmann::json& j, std::string_view name);
param_value value_from_json(const nlohmann::ordered_json& j, std::string_view name);

/// Keeps the config's order (nlohmann::ordered_json).
nlohmann::ordered_json config_to_json(const config& c);
/// From an ordered_json the parameter order is kept; from a plain json it is alphabetical.
config config_from_json(const nlohmann::ordered_json& j);
config config_from_json(const nlohmann::json& j);

} // namespace ktune::detail
