#pragma once
// NVRTC plumbing shared by the single and the batched compile (compile.cpp, compile_batch.cpp).
#include "core/nvrtc_api.hpp"
#include "ktune/core/handle.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::compile::detail {

struct program_deleter {
    void operator()(nvrtcProgram p) const noexcept {
        ktune::detail::nvrtc().nvrtcDestroyProgram(&p);
    }
};
using program = unique_handle<nvrtcProgram, program_deleter>;

/// The cache file of a cubin whose kernel is lowered_name (see cubin_cache::put).
std::filesystem::path cubin_file(const std::filesystem::path& base, std::string_view lowered_name);

/// --gpu-architecture, C++17, -default-device and (when asked) -minimal.
std::vector<std::string> base_options(const std::string& arch, bool minimal);

struct program_output {
    std::string cubin;
    std::string log;
    std::vector<std::string> lowered; ///< one per name expression, same order
};

/// One NVRTC program with any number of name expressions; throws error{nvrtc} with the log.
program_output compile_program(const std::string& source,
                               const std::vector<std::string>& name_expressions,
                               const std::vector<std::string>& opts);
/// With -minimal where NVRTC has it, retried without it if that fails.
program_output compile_program_minimal_first(const std::string& source,
                                             const std::vector<std::string>& names,
                                             const std::string& arch,
                                             const std::vector<std::string>& extra);

} // namespace ktune::compile::detail
