#include "core/worker_executable.hpp"

#include "ktune/core/error.hpp"

#include <cstdlib>
#include <unistd.h>

namespace ktune::detail {

std::vector<std::string> worker_executable_command() {
    if (const char* w = std::getenv("KTUNE_WORKER"); w && *w) return {w, "__worker"};
    char buf[4096];
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        throw error(error_kind::unsupported, "cannot find this executable for a worker; "
                                             "set KTUNE_WORKER to the ktune binary");
    return {std::string(buf, static_cast<std::size_t>(n)), "__worker"};
}

} // namespace ktune::detail
