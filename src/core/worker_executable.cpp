#include "core/worker_executable.hpp"
#include "ktune/core/env.hpp"

#include "ktune/core/error.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace ktune::detail {
namespace {

namespace fs = std::filesystem;

constexpr const char* exe_name = "ktune-worker";

bool runnable(const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

/// The directory of the running program (an installed `ktune` has ktune-worker beside it).
fs::path program_dir() {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path{} : self.parent_path();
}

/// The directory of the object holding this code: libktune.so where ktune is a shared library
/// (the program itself where it is linked statically).
fs::path library_dir() {
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(&worker_executable_command), &info) == 0 ||
        info.dli_fname == nullptr)
        return {};
    std::error_code ec;
    const fs::path p = fs::canonical(info.dli_fname, ec);
    return ec ? fs::path{} : p.parent_path();
}

} // namespace

std::vector<std::string> worker_executable_command() {
    if (const char* w = std::getenv(ktune::env::worker); w && *w) return {w};
    std::vector<fs::path> tried;
    for (const fs::path& dir : {program_dir(), library_dir()})
        if (!dir.empty()) {
            tried.push_back(dir / exe_name);
            tried.push_back(dir.parent_path() / "bin" / exe_name);
        }
#ifdef KTUNE_WORKER_BUILD_PATH
    tried.emplace_back(KTUNE_WORKER_BUILD_PATH);
#endif
#ifdef KTUNE_WORKER_INSTALL_PATH
    tried.emplace_back(KTUNE_WORKER_INSTALL_PATH);
#endif
    std::string where;
    for (const auto& p : tried) {
        if (runnable(p)) return {p.string()};
        where += fmt::format("\n  {}", p.string());
    }
    throw error(error_kind::unsupported,
                fmt::format("no {} executable found; looked in:{}\nset KTUNE_WORKER to its path "
                            "(it is built and installed beside the ktune CLI)",
                            exe_name, where));
}

} // namespace ktune::detail
