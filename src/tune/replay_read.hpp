#pragma once
// Private: the text half of load_recorded_space, for tests and the fuzz target.
#include "ktune/tune/replay.hpp"

#include <string>
#include <string_view>

namespace ktune::tune::detail {

/// Reads a recorded space (Kernel Tuner cache or T4 JSON, already inflated) named `source`.
/// Throws ktune::error{input} naming `source` on anything it cannot use.
recorded_space parse_recorded_space(std::string_view text, const std::string& source);

} // namespace ktune::tune::detail
