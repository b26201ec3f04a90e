#include "command.hpp"

namespace ktune::cli {
command add_export(CLI::App& root) {
    return not_implemented(root, "export", "Export a trace to Chrome/Perfetto JSON, CSV or SQLite");
}
} // namespace ktune::cli
