#include "core/cache_files.hpp"

#include "ktune/core/error.hpp"

#include <fmt/format.h>

#include <fstream>
#include <functional>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace ktune::detail {

std::string read_file(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    if (!f) return {};
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

void write_atomic(const std::filesystem::path& p, std::string_view data) {
    // Unique per process and thread: compile-pool threads may store the same key at once.
    const auto tmp =
        p.string() + fmt::format(".tmp{}.{:x}", static_cast<long>(getpid()),
                                 std::hash<std::thread::id>{}(std::this_thread::get_id()));
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        if (!f)
            throw error(error_kind::io, fmt::format("cannot write {}: check the cache directory "
                                                    "(KTUNE_CUBIN_CACHE)",
                                                    tmp));
        f.write(data.data(), static_cast<std::streamsize>(data.size()));
        if (!f) throw error(error_kind::io, fmt::format("cannot write {}", tmp));
    }
    std::filesystem::rename(tmp, p);
}

} // namespace ktune::detail
