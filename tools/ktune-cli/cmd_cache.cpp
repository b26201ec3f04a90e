#include "command.hpp"

namespace ktune::cli {
command add_cache(CLI::App& root) {
    return not_implemented(root, "cache", "List, read, merge, verify and remove tuned configs");
}
} // namespace ktune::cli
