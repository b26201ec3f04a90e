#include "command.hpp"

namespace ktune::cli {
command add_top(CLI::App& root) {
    return not_implemented(root, "top", "Rank kernels by their share of GPU time");
}
} // namespace ktune::cli
