#pragma once
// The one check the launcher's files (misses lines, capture.json) make before reading fields:
// their "schema" is the expected one and "version" a 1.x string (docs/formats.md#ktunekernel_miss,
// #ktunekernel_capture).
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace ktune::kernel::detail {

template <class Json>
bool is_schema_1x(const Json& j, std::string_view schema) {
    const auto s = j.find("schema");
    const auto v = j.find("version");
    return s != j.end() && s->is_string() && s->template get<std::string>() == schema &&
           v != j.end() && v->is_string() && v->template get<std::string>().rfind("1.", 0) == 0;
}

} // namespace ktune::kernel::detail
