// ktune ops [--json]: the registered ops and their spaces.
#include "command.hpp"

#include "ktune/ops/op.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <memory>

namespace ktune::cli {

command add_ops(CLI::App& root) {
    auto* app = root.add_subcommand("ops", "List registered ops and their spaces");
    auto json = std::make_shared<bool>(false);
    auto shape = std::make_shared<std::string>("8192x8192");
    app->add_flag("--json", *json, "machine-readable output (schema ktune.ops)");
    app->add_option("--shape", *shape, "count valid configs for this shape")->capture_default_str();
    return {app, [json, shape] {
                const ops::shape2d s = ops::parse_shape(*shape);
                if (*json) {
                    nlohmann::ordered_json j{{"schema", "ktune.ops"},
                                             {"version", "1.0.0"},
                                             {"ops", nlohmann::ordered_json::array()}};
                    for (const ops::op* o : ops::all_ops()) {
                        nlohmann::ordered_json oj{{"name", o->name()},
                                                  {"version", o->version()},
                                                  {"description", o->description()},
                                                  {"torch", o->torch_equivalent()}};
                        for (const auto& a : o->axes()) {
                            nlohmann::ordered_json vals = nlohmann::ordered_json::array();
                            for (const auto& v : a.values)
                                std::visit([&vals](const auto& x) { vals.push_back(x); }, v);
                            oj["axes"][a.name] = vals;
                        }
                        for (ops::dtype t : {ops::dtype::f32, ops::dtype::bf16})
                            oj["valid_configs"][std::string(ops::to_string(t))] =
                                o->enumerate({s, t}).size();
                        j["ops"].push_back(std::move(oj));
                    }
                    fmt::print("{}\n", j.dump(2));
                    return static_cast<int>(ok);
                }
                for (const ops::op* o : ops::all_ops()) {
                    fmt::print("{} (v{}): {}\n", o->name(), o->version(), o->description());
                    for (const auto& a : o->axes()) {
                        std::string vals;
                        for (const auto& v : a.values)
                            vals += (vals.empty() ? "" : ",") + to_string(v);
                        fmt::print("  {:<16} {{{}}}  {}\n", a.name, vals, a.doc);
                    }
                    fmt::print("  valid configs at {}: fp32 {}, bf16 {}; PyTorch: {}\n", *shape,
                               o->enumerate({s, ops::dtype::f32}).size(),
                               o->enumerate({s, ops::dtype::bf16}).size(), o->torch_equivalent());
                }
                return static_cast<int>(ok);
            }};
}

} // namespace ktune::cli
