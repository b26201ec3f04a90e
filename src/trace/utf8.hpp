#pragma once
// Names in a trace are bytes from the profiled program (kernel symbols, NVTX messages): any
// byte sequence may arrive. Readers hand out valid UTF-8 so that every JSON writer can emit it.
#include <string>
#include <string_view>

namespace ktune::trace::detail {

/// `s` with every invalid UTF-8 sequence (bad lead byte, cut or overlong sequence, surrogate,
/// beyond U+10FFFF) replaced by U+FFFD; valid input comes back unchanged.
std::string valid_utf8(std::string_view s);

} // namespace ktune::trace::detail
