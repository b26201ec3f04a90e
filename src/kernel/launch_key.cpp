// The cache key of a user kernel's problem (launcher.hpp, kernel_cache_key) and kernel_arg's
// scalar accessors.
#include "kernel/launch_key.hpp"

#include "ktune/kernel/check.hpp"
#include "ktune/kernel/launcher.hpp"

#include <algorithm>

namespace ktune::kernel {

std::int64_t kernel_arg::as_int() const noexcept {
    switch (type_) {
    case element_type::int32:
        return bits_.i32;
    case element_type::fp32:
        return static_cast<std::int64_t>(bits_.f32);
    case element_type::fp64:
        return static_cast<std::int64_t>(bits_.f64);
    default:
        return bits_.i64;
    }
}

double kernel_arg::as_double() const noexcept {
    switch (type_) {
    case element_type::int32:
        return bits_.i32;
    case element_type::fp32:
        return bits_.f32;
    case element_type::fp64:
        return bits_.f64;
    default:
        return static_cast<double>(bits_.i64);
    }
}

std::string kernel_dtype(const kernel_spec& s) {
    std::string out;
    std::vector<element_type> seen;
    for (const auto& a : s.arguments) {
        if (a.kind != argument_kind::buffer) continue;
        if (std::find(seen.begin(), seen.end(), a.type) != seen.end()) continue;
        seen.push_back(a.type);
        if (!out.empty()) out += '+';
        out += to_string(a.type);
    }
    return out.empty() ? "none" : out;
}

namespace detail {
cache::cache_key kernel_cache_key(const kernel_spec& s, const std::string& hash,
                                  const std::string& dtype, const problem& p,
                                  const cache::environment& env) {
    const problem b = bucket_of(s, p);
    std::vector<std::int64_t> bucket;
    bucket.reserve(s.dimensions.size());
    for (const auto& d : s.dimensions)
        bucket.push_back(b.at(d.first));
    return {s.name,           hash,        dtype, std::move(bucket), env.arch, env.toolkit,
            env.driver_major, env.protocol};
}
} // namespace detail

cache::cache_key kernel_cache_key(const kernel_spec& s, const problem& p,
                                  const cache::environment& env) {
    check_problem(s, p);
    return detail::kernel_cache_key(s, spec_hash(s), kernel_dtype(s), p, env);
}

} // namespace ktune::kernel
