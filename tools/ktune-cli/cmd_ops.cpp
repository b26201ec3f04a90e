#include "command.hpp"

namespace ktune::cli {
command add_ops(CLI::App& root) {
    return not_implemented(root, "ops", "List registered ops and their spaces");
}
} // namespace ktune::cli
