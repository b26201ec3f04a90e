#pragma once
// Each subcommand lives in its own file and registers itself through one add_* function.
// No logic beyond parsing and printing belongs here: that lives in the library.

#include <CLI/CLI.hpp>

#include <functional>
#include <string_view>

namespace ktune::cli {

/// Exit codes of DESIGN.md: 0 ok, 1 finding (regression, failed check), 2 usage or input error.
enum exit_code : int { ok = 0, finding = 1, usage_error = 2 };

struct command {
    CLI::App* app = nullptr;
    std::function<int()> run; ///< called after parsing when this subcommand was chosen
    bool implemented = true;
};

command add_profile(CLI::App& root);
command add_top(CLI::App& root);
command add_roofline(CLI::App& root);
command add_export(CLI::App& root);
command add_tune(CLI::App& root);
command add_cache(CLI::App& root);
command add_bench(CLI::App& root);
command add_diff(CLI::App& root);
command add_device(CLI::App& root);
command add_ops(CLI::App& root);
command add_ingest(CLI::App& root);
command add_backlog(CLI::App& root);
command add_regressions(CLI::App& root);
command add_kernel(CLI::App& root);

/// A subcommand whose capability is not built yet: it says so and exits 2, never silently.
command not_implemented(CLI::App& root, std::string_view name, std::string_view description);

/// True when stderr is a terminal: progress is shown only then.
bool stderr_is_tty() noexcept;

} // namespace ktune::cli
