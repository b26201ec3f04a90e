#pragma once
// The one error type of ktune. Every failure carries a kind so callers (and the CLI's exit
// codes) can tell a bad input from a missing GPU from a CUDA fault without parsing messages.
//
//   try { ... } catch (const ktune::error& e) { if (e.kind() == ktune::error_kind::no_device) ... }

#include <stdexcept>
#include <string>
#include <string_view>

namespace ktune {

enum class error_kind {
    usage,       ///< wrong command-line or API use
    input,       ///< a malformed file or value (message names file:line where known)
    io,          ///< a file could not be read or written
    not_found,   ///< a named thing (op, key, GPU, strategy) does not exist
    unsupported, ///< valid request this build, toolkit or GPU cannot serve
    no_device,   ///< no usable CUDA GPU
    cuda,        ///< CUDA runtime or driver API failure
    nvrtc,       ///< run-time compilation failure
    cupti,       ///< CUPTI failure
    timeout,     ///< work did not finish in time
    internal,    ///< a bug in ktune
};

/// Stable lower-case name of a kind, e.g. "no_device".
std::string_view to_string(error_kind kind) noexcept;

class error : public std::runtime_error {
public:
    error(error_kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
    [[nodiscard]] error_kind kind() const noexcept { return kind_; }

private:
    error_kind kind_;
};

} // namespace ktune
