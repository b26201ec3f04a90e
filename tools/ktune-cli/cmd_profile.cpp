#include "command.hpp"

namespace ktune::cli {
command add_profile(CLI::App& root) {
    return not_implemented(root, "profile", "Record every kernel of a program through CUPTI");
}
} // namespace ktune::cli
