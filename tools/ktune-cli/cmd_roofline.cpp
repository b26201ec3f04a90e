#include "command.hpp"

namespace ktune::cli {
command add_roofline(CLI::App& root) {
    return not_implemented(root, "roofline", "Place kernels on the roofline of their GPU");
}
} // namespace ktune::cli
