#include "command.hpp"

namespace ktune::cli {
command add_bench(CLI::App& root) {
    return not_implemented(root, "bench", "Run a pinned suite and record timing distributions");
}
} // namespace ktune::cli
