#include "core/torch_script.hpp"

#include "ktune/core/env.hpp"
#include "ktune/core/error.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace ktune::detail {

torch_script_answer run_torch_script(std::string_view script,
                                     const std::vector<std::string>& args) {
    torch_script_answer a;
    std::string python = "python3";
    if (const char* p = std::getenv(ktune::env::python); p && *p) python = p;
    // Unique per process and call: a plan over several GPUs times PyTorch from several threads.
    static std::atomic<unsigned> calls{0};
    const auto path = std::filesystem::temp_directory_path() /
                      fmt::format("ktune_torch_{}_{}.py", static_cast<long>(getpid()), calls++);
    {
        std::ofstream f(path);
        f << script;
        if (!f) throw error(error_kind::io, fmt::format("cannot write {}", path.string()));
    }
    std::string cmd = fmt::format("'{}' '{}'", python, path.string());
    for (const auto& arg : args)
        cmd += fmt::format(" '{}'", arg);
    cmd += " 2>&1";
    std::string output;
    if (FILE* f = ::popen(cmd.c_str(), "r")) {
        char buf[4096];
        std::size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
            output.append(buf, n);
        ::pclose(f);
    }
    std::filesystem::remove(path);
    constexpr std::string_view marker = "KTUNE_TORCH ";
    const auto at = output.rfind(marker);
    if (at == std::string::npos) {
        a.message = fmt::format("'{}' did not run the PyTorch timing (set KTUNE_PYTHON to a "
                                "python with torch): {}",
                                python, output.substr(0, 300));
        return a;
    }
    try {
        a.doc = nlohmann::json::parse(output.substr(at + marker.size()));
        a.answered = true;
    } catch (const nlohmann::json::exception& e) {
        a.message = fmt::format("unreadable answer from the PyTorch script: {}", e.what());
    }
    return a;
}

} // namespace ktune::detail
