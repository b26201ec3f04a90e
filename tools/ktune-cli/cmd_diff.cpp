#include "command.hpp"

namespace ktune::cli {
command add_diff(CLI::App& root) {
    return not_implemented(root, "diff", "Compare two runs and flag significant slowdowns");
}
} // namespace ktune::cli
