// ktune ops [--json]: the registered ops and their spaces.
#include "command.hpp"

#include "ktune/core/env.hpp"
#include "ktune/kernel/check.hpp"
#include "ktune/ops/op.hpp"
#include "ktune/ops/ops_report.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <memory>
#include <optional>

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
                std::optional<ops::kernel_listing> listing;
                if (!kernels->empty())
                    listing = ops::kernel_listing{
                        *kernels,
                        kernel::list_specs(*kernels, kernel::device_limits::for_arch("sm_90"))};
                const ops::kernel_listing* k = listing ? &*listing : nullptr;
                if (*json)
                    fmt::print("{}\n", ops::ops_json(ops::all_ops(), s, k));
                else
                    fmt::print("{}", ops::format_ops(ops::all_ops(), s, k));
                return static_cast<int>(ok);
            }};
}

} // namespace ktune::cli
