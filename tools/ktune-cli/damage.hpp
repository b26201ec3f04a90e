#pragma once
// A damaged or cut trace is an input error (exit 2) that names the file, the byte offset and what
// is wrong; `--allow-incomplete` turns it into a warning for the reader who wants what survived.
#include "ktune/core/error.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <string>

namespace ktune::cli {

inline void add_allow_incomplete(CLI::App* app, bool& flag) {
    app->add_flag("--allow-incomplete", flag,
                  "Read what survived of a damaged or cut trace (a warning, exit 0) instead of "
                  "failing with exit 2");
}

/// Throws ktune::error{input} for `damage` (a reader's message naming file and byte offset)
/// unless `allow`; then prints it as a warning. Nothing when `damage` is empty.
inline void refuse_damage(const std::string& damage, bool allow, const char* command) {
    if (damage.empty()) return;
    if (!allow)
        throw error(error_kind::input,
                    damage + "; pass --allow-incomplete to use the records before the damage");
    fmt::print(stderr, "ktune {}: warning: {} (--allow-incomplete: using what survived)\n", command,
               damage);
}

} // namespace ktune::cli
