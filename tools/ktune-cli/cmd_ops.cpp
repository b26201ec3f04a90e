// ktune ops [--json]: the registered ops and their spaces.
#include "command.hpp"

#include "ktune/ops/op.hpp"
#include "ktune/ops/ops_report.hpp"

#include <fmt/format.h>

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
                if (*json)
                    fmt::print("{}\n", ops::ops_json(ops::all_ops(), s));
                else
                    fmt::print("{}", ops::format_ops(ops::all_ops(), s));
                return static_cast<int>(ok);
            }};
}

} // namespace ktune::cli
