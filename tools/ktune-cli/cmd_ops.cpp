// ktune ops [--json]: the registered ops and their spaces.
#include "command.hpp"

#include "ktune/core/env.hpp"
#include "ktune/kernel/check.hpp"
#include "ktune/ops/op.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <memory>

namespace ktune::cli {

command add_ops(CLI::App& root) {
    auto* app = root.add_subcommand("ops", "List registered ops and their spaces");
    auto json = std::make_shared<bool>(false);
    auto shape = std::make_shared<std::string>("8192x8192");
    app->add_flag("--json", *json, "machine-readable output (schema ktune.ops)");
    app->add_option("--shape", *shape, "count valid configs for this shape")->capture_default_str();
    auto kernels = std::make_shared<std::string>();
    app->add_option("--kernels", *kernels,
                    "also list the kernel specs under this directory (default: $KTUNE_KERNELS)");
    return {app, [json, shape, kernels] {
                const ops::shape2d s = ops::parse_shape(*shape);
                if (kernels->empty())
                    if (const char* d = std::getenv(env::kernels); d && *d) *kernels = d;
                // Users' kernels, each at its spec's example problem for sm_90.
                std::vector<kernel::listed_spec> specs;
                if (!kernels->empty())
                    specs = kernel::list_specs(*kernels, kernel::device_limits::for_arch("sm_90"));
                if (*json) {
                    nlohmann::ordered_json j{{"schema", "ktune.ops"},
                                             {"version", "1.1.0"},
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
                    if (!kernels->empty()) {
                        j["kernels"] = nlohmann::ordered_json::array();
                        for (const auto& k : specs)
                            j["kernels"].push_back(
                                {{"spec", k.path},
                                 {"name", k.name},
                                 {"kernel", k.kernel},
                                 {"valid_configs", k.valid},
                                 {"error", k.error.empty() ? nlohmann::ordered_json(nullptr)
                                                           : nlohmann::ordered_json(k.error)}});
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
                if (!kernels->empty()) fmt::print("kernel specs under {}:\n", *kernels);
                for (const auto& k : specs) {
                    if (k.error.empty())
                        fmt::print("  {} ({}): {}, {} valid configs at its example problem\n",
                                   k.name, k.path, k.kernel, k.valid);
                    else
                        fmt::print("  {}: does not load: {}\n", k.path, k.error);
                }
                return static_cast<int>(ok);
            }};
}

} // namespace ktune::cli
