// The metrics request a launcher hands a profiled process: one encoding both sides use.
#include "catch.hpp"

#include "ktune/core/env.hpp"
#include "ktune/core/error.hpp"
#include "ktune/metrics/launch_options.hpp"

#include <map>
#include <string>

using namespace ktune;
using metrics::launch_options;

namespace {

std::map<std::string, std::string> as_map(const launch_options& o) {
    std::map<std::string, std::string> m;
    for (const auto& [k, v] : metrics::encode_launch_env(o))
        if (!v.empty()) m[k] = v;
    return m;
}

std::optional<launch_options> decode(const std::map<std::string, std::string>& m,
                                     std::vector<std::string>* warnings = nullptr) {
    return metrics::decode_launch_env(
        [&](const char* name) -> const char* {
            const auto it = m.find(name);
            return it == m.end() ? nullptr : it->second.c_str();
        },
        warnings);
}

} // namespace

TEST_CASE("launch options survive the environment unchanged") {
    launch_options o;
    o.set = "roofline";
    o.sampling.kernel_regex = "gemm|softmax";
    o.sampling.deny_regex = "nccl";
    o.sampling.sample_every = 4;
    o.sampling.max_kernels = 7;
    o.sampling.max_per_kernel = 2;
    o.max_passes = 5;
    o.flush_l2 = true;
    o.replay = metrics::replay_mode::launches;
    o.resolved = "opaque-resolution";
    o.peaks_file = "/abs/peaks.json";
    const auto back = decode(as_map(o));
    REQUIRE(back);
    CHECK(*back == o);
    CHECK(as_map(o).at(env::metrics_cache_control) == "all");
    CHECK(as_map(o).at(env::metrics_replay) == "launches");
}

TEST_CASE("no set: nothing requested, and the set variable is cleared") {
    CHECK_FALSE(decode({}).has_value());
    const auto e = metrics::encode_launch_env(launch_options{});
    REQUIRE(e.size() == 1);
    CHECK(e[0].first == env::metrics);
    CHECK(e[0].second.empty());
}

TEST_CASE("unreadable values keep their defaults and say why; a bad sample rate is refused") {
    std::vector<std::string> w;
    const auto o = decode({{env::metrics, "occupancy"},
                           {env::metrics_max_kernels, "zero"},
                           {env::metrics_cache_control, "some"},
                           {env::metrics_replay, "twice"}},
                          &w);
    REQUIRE(o);
    CHECK(o->sampling.max_kernels == 10);
    CHECK_FALSE(o->flush_l2);
    CHECK(o->replay == metrics::replay_mode::kernel);
    REQUIRE(w.size() == 3);
    CHECK(w[0].find(env::metrics_max_kernels) != std::string::npos);
    CHECK_THROWS_AS(decode({{env::metrics, "roofline"}, {env::metrics_sample, "1/0"}}), error);
}
