// The report of `ktune ops`: JSON (schema ktune.ops, docs/formats.md) and text.
#include "ktune/ops/ops_report.hpp"

#include "ktune/kernel/builder.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <variant>

namespace ktune::ops {

std::string ops_json(std::span<const op* const> ops, const shape2d& shape,
                     const kernel_listing* kernels) {
    nlohmann::ordered_json j{
        {"schema", "ktune.ops"}, {"version", "1.2.0"}, {"ops", nlohmann::ordered_json::array()}};
    for (const op* o : ops) {
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
        for (dtype t : {dtype::f32, dtype::bf16})
            oj["valid_configs"][std::string(to_string(t))] = o->enumerate({shape, t}).size();
        // The problem in the model of users' kernels: its dimensions and, per element type,
        // the arguments in kernel-argument order.
        oj["dimensions"] = nlohmann::ordered_json::array();
        for (const auto& [name, value] : dimensions({shape, dtype::f32}).dims)
            oj["dimensions"].push_back(name);
        for (dtype t : {dtype::f32, dtype::bf16}) {
            auto& args = oj["arguments"][std::string(to_string(t))];
            args = nlohmann::ordered_json::array();
            for (const auto& a : o->arguments({shape, t}))
                args.push_back(nlohmann::ordered_json::parse(kernel::to_json(a)));
        }
        j["ops"].push_back(std::move(oj));
    }
    if (kernels) {
        j["kernels"] = nlohmann::ordered_json::array();
        for (const auto& k : kernels->specs)
            j["kernels"].push_back({{"spec", k.path},
                                    {"name", k.name},
                                    {"kernel", k.kernel},
                                    {"valid_configs", k.valid},
                                    {"error", k.error.empty() ? nlohmann::ordered_json(nullptr)
                                                              : nlohmann::ordered_json(k.error)}});
    }
    return j.dump(2);
}

std::string format_ops(std::span<const op* const> ops, const shape2d& shape,
                       const kernel_listing* kernels) {
    std::string out;
    for (const op* o : ops) {
        out += fmt::format("{} (v{}): {}\n", o->name(), o->version(), o->description());
        for (const auto& a : o->axes()) {
            std::string vals;
            for (const auto& v : a.values)
                vals += (vals.empty() ? "" : ",") + ktune::to_string(v);
            out += fmt::format("  {:<16} {{{}}}  {}\n", a.name, vals, a.doc);
        }
        std::string args;
        for (const auto& a : o->arguments({shape, dtype::f32}))
            args += (args.empty() ? "" : ", ") +
                    (a.kind == kernel::argument_kind::buffer
                         ? fmt::format("{}[{}]{}", a.name, a.size.text(), a.output ? " out" : "")
                         : fmt::format("int {}", a.name));
        out += fmt::format("  arguments: {}\n", args);
        out += fmt::format("  valid configs at {}: fp32 {}, bf16 {}; PyTorch: {}\n",
                           to_string(shape), o->enumerate({shape, dtype::f32}).size(),
                           o->enumerate({shape, dtype::bf16}).size(), o->torch_equivalent());
    }
    if (!kernels) return out;
    out += fmt::format("kernel specs under {}:\n", kernels->dir);
    for (const auto& k : kernels->specs) {
        if (k.error.empty())
            out += fmt::format("  {} ({}): {}, {} valid configs at its example problem\n", k.name,
                               k.path, k.kernel, k.valid);
        else
            out += fmt::format("  {}: does not load: {}\n", k.path, k.error);
    }
    return out;
}

} // namespace ktune::ops
