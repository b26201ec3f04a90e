#include "ktune/cache/key.hpp"
#include "core/fnv1a.hpp"
#include "ktune/cache/bucket.hpp"
#include "ktune/core/device.hpp"
#include "ktune/core/error.hpp"
#include "ktune/core/rng.hpp"

#include <fmt/format.h>

#include <string_view>
#include <tuple>

namespace ktune::cache {
namespace {

// FNV-1a folded through a final avalanche (splitmix64_mix, ktune/core/rng.hpp): cheap, no
// dependency, and the low bits that index the open-addressing table are well mixed.
using ktune::detail::fnv1a_basis;
std::uint64_t mix_str(std::uint64_t h, std::string_view s) noexcept {
    return ktune::detail::fnv1a(h, s); // with a separator: ("ab","c") != ("a","bc")
}
std::uint64_t mix_int(std::uint64_t h, std::int64_t v) noexcept {
    return ktune::detail::fnv1a_bytes(h, &v, sizeof v);
}
std::uint64_t family_raw(const cache_key& k) noexcept {
    std::uint64_t h = fnv1a_basis;
    h = mix_str(h, k.op);
    h = mix_str(h, k.op_version);
    h = mix_str(h, k.dtype);
    h = mix_str(h, k.arch);
    h = mix_int(h, k.toolkit);
    h = mix_int(h, k.driver_major);
    return mix_int(h, k.protocol);
}

} // namespace

std::string cache_key::to_string() const {
    return fmt::format("{}@{} {} {} {} cuda{} drv{} p{}", op, op_version, dtype,
                       bucket.empty() ? std::string("-") : format_shape(bucket), arch,
                       format_cuda_version(toolkit), driver_major, protocol);
}

bool key_less(const cache_key& a, const cache_key& b) noexcept {
    return std::tie(a.op, a.op_version, a.dtype, a.arch, a.toolkit, a.driver_major, a.protocol,
                    a.bucket) < std::tie(b.op, b.op_version, b.dtype, b.arch, b.toolkit,
                                         b.driver_major, b.protocol, b.bucket);
}

std::uint64_t key_hash(const cache_key& k) noexcept {
    std::uint64_t h = mix_int(family_raw(k), static_cast<std::int64_t>(k.bucket.size()));
    for (auto d : k.bucket)
        h = mix_int(h, d);
    return splitmix64_mix(h);
}

std::uint64_t family_hash(const cache_key& k) noexcept {
    return splitmix64_mix(family_raw(k));
}

bool same_family(const cache_key& a, const cache_key& b) noexcept {
    return a.op == b.op && a.op_version == b.op_version && a.dtype == b.dtype && a.arch == b.arch &&
           a.toolkit == b.toolkit && a.driver_major == b.driver_major && a.protocol == b.protocol;
}

environment environment::current(int ordinal) {
    const device_query q = query_devices();
    if (q.devices.empty()) {
        // No GPU (or no driver): an application must still start and launch its defaults, so
        // the key gets an arch no entry has instead of an exception (README, Embedding).
        environment e;
        e.arch = std::string(unknown_arch);
        e.toolkit = q.versions.runtime;
        return e;
    }
    if (ordinal < 0 || static_cast<std::size_t>(ordinal) >= q.devices.size())
        throw error(error_kind::no_device,
                    fmt::format("GPU {} does not exist ({} visible)", ordinal, q.devices.size()));
    environment e;
    e.arch = q.devices[static_cast<std::size_t>(ordinal)].arch();
    e.toolkit = q.versions.runtime;
    e.driver_major = q.versions.driver_major();
    return e;
}

} // namespace ktune::cache
