#pragma once
// Numeric option checks: CLI11's conversions accept "nan", "inf" and, for unsigned options, "-1"
// (which wraps to a huge count), so every numeric option of ktune names its accepted range here
// and a value outside it is a usage error (exit 2) naming the option.
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

namespace ktune::cli {

/// A finite number in [lo, hi].
inline CLI::Validator finite_range(double lo, double hi) {
    return CLI::Validator(
        [lo, hi](std::string& s) -> std::string {
            char* end = nullptr;
            errno = 0;
            const double v = std::strtod(s.c_str(), &end);
            if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE || !std::isfinite(v))
                return "'" + s + "' is not a finite number";
            if (v < lo || v > hi)
                return "'" + s + "' is outside [" + CLI::detail::to_string(lo) + ", " +
                       CLI::detail::to_string(hi) + "]";
            return "";
        },
        "NUMBER in [" + CLI::detail::to_string(lo) + ", " + CLI::detail::to_string(hi) + "]");
}

/// A whole number written with digits only, in [lo, hi] (no sign, exponent or fraction).
inline CLI::Validator whole_range(unsigned long long lo, unsigned long long hi) {
    return CLI::Validator(
        [lo, hi](std::string& s) -> std::string {
            if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
                return "'" + s + "' is not a non-negative whole number";
            errno = 0;
            const unsigned long long v = std::strtoull(s.c_str(), nullptr, 10);
            if (errno == ERANGE || v < lo || v > hi)
                return "'" + s + "' is outside [" + std::to_string(lo) + ", " + std::to_string(hi) +
                       "]";
            return "";
        },
        "INT in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

} // namespace ktune::cli
