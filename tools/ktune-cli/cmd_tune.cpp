#include "command.hpp"

namespace ktune::cli {
command add_tune(CLI::App& root) {
    return not_implemented(root, "tune",
                           "Search the configuration space of an op or a recorded space");
}
} // namespace ktune::cli
