#pragma once
// Private: kernel_cache_key with the spec's hash and dtype computed once (the launcher keys
// every new problem without rereading the sources).
#include "ktune/cache/key.hpp"
#include "ktune/kernel/spec.hpp"

#include <string>

namespace ktune::kernel::detail {

/// kernel_cache_key(s, p, env) given spec_hash(s) and kernel_dtype(s); p must name each of the
/// spec's dimensions.
cache::cache_key kernel_cache_key(const kernel_spec& s, const std::string& hash,
                                  const std::string& dtype, const problem& p,
                                  const cache::environment& env);

} // namespace ktune::kernel::detail
