#include "ktune/metrics/launch_options.hpp"

#include "ktune/core/env.hpp"

#include <fmt/format.h>

#include <cstdlib>

namespace ktune::metrics {
namespace {

std::string count(std::uint64_t n) {
    return std::to_string(n);
}

} // namespace

std::vector<std::pair<std::string, std::string>> encode_launch_env(const launch_options& o) {
    if (o.set.empty()) return {{env::metrics, ""}};
    return {
        {env::metrics, o.set},
        {env::metrics_kernels, o.sampling.kernel_regex},
        {env::metrics_deny, o.sampling.deny_regex},
        {env::metrics_sample, count(o.sampling.sample_every)},
        {env::metrics_max_kernels, count(o.sampling.max_kernels)},
        {env::metrics_per_kernel, count(o.sampling.max_per_kernel)},
        {env::metrics_max_passes, count(o.max_passes)},
        {env::metrics_cache_control, o.flush_l2 ? "all" : "none"},
        {env::metrics_replay, std::string(to_string(o.replay))},
        {env::metrics_resolved, o.resolved},
        {env::metrics_peaks, o.peaks_file},
    };
}

void export_launch_env(const launch_options& o) {
    for (const auto& [name, value] : encode_launch_env(o)) {
        if (value.empty())
            ::unsetenv(name.c_str());
        else
            ::setenv(name.c_str(), value.c_str(), 1);
    }
}

std::optional<launch_options>
decode_launch_env(const std::function<const char*(const char*)>& get_fn,
                  std::vector<std::string>* warnings) {
    const auto get = [&](const char* name) -> const char* {
        const char* v = get_fn ? get_fn(name) : std::getenv(name);
        return v && *v ? v : nullptr;
    };
    const auto warn = [&](std::string w) {
        if (warnings) warnings->push_back(std::move(w));
    };
    const auto count_of = [&](const char* name, std::uint64_t fallback) -> std::uint64_t {
        const char* v = get(name);
        if (!v) return fallback;
        char* end = nullptr;
        const unsigned long long n = std::strtoull(v, &end, 10);
        if (end == v || *end || n == 0) {
            warn(fmt::format("ignoring {}={} (expected a count >= 1)", name, v));
            return fallback;
        }
        return n;
    };
    const char* set = get(env::metrics);
    if (!set) return std::nullopt;
    launch_options o;
    o.set = set;
    o.max_passes = count_of(env::metrics_max_passes, 3);
    if (const char* k = get(env::metrics_kernels)) o.sampling.kernel_regex = k;
    if (const char* d = get(env::metrics_deny)) o.sampling.deny_regex = d;
    if (const char* s = get(env::metrics_sample)) o.sampling.sample_every = parse_sample_rate(s);
    o.sampling.max_kernels = count_of(env::metrics_max_kernels, 10);
    o.sampling.max_per_kernel = count_of(env::metrics_per_kernel, 1);
    if (const char* c = get(env::metrics_cache_control)) {
        const std::string cc = c;
        if (cc != "all" && cc != "none")
            warn(fmt::format("ignoring {}={} (all or none); caches left as they are",
                             env::metrics_cache_control, cc));
        o.flush_l2 = cc == "all";
    }
    if (const char* r = get(env::metrics_replay)) {
        try {
            o.replay = parse_replay_mode(r);
        } catch (const std::exception& e) {
            warn(fmt::format("ignoring {}: {}", env::metrics_replay, e.what()));
        }
    }
    if (const char* r = get(env::metrics_resolved)) o.resolved = r;
    if (const char* p = get(env::metrics_peaks)) o.peaks_file = p;
    return o;
}

} // namespace ktune::metrics
