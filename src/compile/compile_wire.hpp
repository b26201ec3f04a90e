#pragma once
// The compile server's wire format: one JSON line per batch each way (compile_server.cpp is the
// server, compile_process.cpp the client). Cubins stay in the cubin cache; only paths travel.
#include "ktune/compile/compile.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::compile::detail {

std::string encode_batch(const std::vector<compile_request>& rs, const std::filesystem::path& dir);
/// Throws error{input} naming the missing or malformed field.
std::vector<compile_request> decode_batch(std::string_view line, std::filesystem::path& dir);

/// compile_result without its cubin (the client reads the file when it wants the bytes).
std::string encode_results(const std::vector<compile_result>& rs);
std::vector<compile_result> decode_results(std::string_view line);

/// The server's first line, sent once it can compile.
std::string ready_line();
bool is_ready_line(std::string_view line);

} // namespace ktune::compile::detail
