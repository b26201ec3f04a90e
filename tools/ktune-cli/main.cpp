// ktune: profile -> classify -> tune -> cache -> guard.
#include "command.hpp"

#include "ktune/core/error.hpp"
#include "ktune/core/version.hpp"
#include "ktune/worker/worker.hpp"

#include <cstdio>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

namespace ktune::cli {

bool stderr_is_tty() noexcept {
    return isatty(STDERR_FILENO) == 1;
}

command not_implemented(CLI::App& root, std::string_view name, std::string_view description) {
    auto* app =
        root.add_subcommand(std::string(name), std::string(description) + " (not implemented yet)");
    return {app,
            [name = std::string(name)] {
                std::fprintf(stderr, "ktune %s: not implemented yet\n", name.c_str());
                return static_cast<int>(usage_error);
            },
            false};
}

} // namespace ktune::cli

int main(int argc, char** argv) {
    using namespace ktune::cli;
    CLI::App root{"ktune: find slow CUDA kernels, prove why, tune them, cache and guard the "
                  "winners"};
    root.set_version_flag("--version", std::string(ktune::version()));
    root.require_subcommand(1);

    const std::vector<command> commands{
        add_profile(root),     add_top(root),   add_roofline(root), add_export(root),
        add_tune(root),        add_cache(root), add_bench(root),    add_diff(root),
        add_device(root),      add_ops(root),   add_ingest(root),   add_backlog(root),
        add_regressions(root),
        add_kernel(root), // user kernels' specs: ktune kernel check
    };

    if (argc > 1 && argv[1][0] != '-') {
        const command* chosen = nullptr;
        for (const auto& c : commands)
            if (c.app->get_name() == argv[1]) chosen = &c;
        // Whatever follows a command that does not exist yet is not parsed: the user reads
        // "not implemented yet", not a parse error about its arguments.
        if (chosen && !chosen->implemented) return chosen->run();
        if (!chosen) {
            std::fprintf(stderr, "ktune: unknown subcommand '%s'; `ktune --help` lists them\n",
                         argv[1]);
            return usage_error;
        }
    }
    try {
        root.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int rc = root.exit(e);
        return rc == 0 ? 0 : static_cast<int>(usage_error);
    }
    try {
        for (const auto& c : commands)
            if (c.app->parsed()) return c.run();
    } catch (const ktune::error& e) {
        std::fprintf(stderr, "ktune: %s error: %s\n", std::string(to_string(e.kind())).c_str(),
                     e.what());
        return usage_error;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ktune: internal error: %s\n", e.what());
        return usage_error;
    }
    return usage_error;
}
